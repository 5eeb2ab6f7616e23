import HTTPTypes

/// The routes as a tree of path segments, so a request finds its route in as many steps as
/// its path has segments, however many routes there are. A literal segment wins over a
/// `{param}`, which wins over a greedy `{proxy+}` (API Gateway's order); a method's own
/// route wins over `ANY`.
struct RouteTable: Sendable {
    /// A route's position in the definition, and its path parameters.
    struct Match {
        let index: Int
        let parameters: [String: String]
    }

    private final class Node: @unchecked Sendable {
        /// The literal segments' bytes while routes are added (bytes, not `String`s, which
        /// would make two spellings of one character the same segment); ``freeze()`` moves them
        /// into the two below.
        var literals: [[UInt8]: Node] = [:]
        /// Every literal segment's UTF-8 bytes, one after another in byte order, so a request's
        /// segment is found by binary search on bytes: no `String` made, nothing hashed.
        var literalBytes: [UInt8] = []
        /// Each literal's place in `literalBytes`, and where it leads.
        var literalNodes: [(start: Int, end: Int, node: Node)] = []
        var parameter: (name: String, node: Node)?
        var greedy: (name: String, routes: [MethodRoute])?
        var routes: [MethodRoute] = []

        /// Sorts the literals into `literalBytes` and `literalNodes`, here and below.
        func freeze() {
            for (literal, node) in literals.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                literalNodes.append((literalBytes.count, literalBytes.count + literal.count, node))
                literalBytes.append(contentsOf: literal)
                node.freeze()
            }
            literals = [:]
            parameter?.node.freeze()
        }

        /// The node for the literal `segment`, or nil.
        func literal(_ segment: UnsafeBufferPointer<UInt8>) -> Node? {
            let nodes = literalNodes  // one exclusivity check, not one a step
            return literalBytes.withUnsafeBufferPointer { bytes in
                var low = 0
                var high = nodes.count
                while low < high {
                    let middle = (low + high) / 2
                    let entry = nodes[middle]
                    switch RouteTable.order(UnsafeBufferPointer(rebasing: bytes[entry.start..<entry.end]), segment) {
                    case 0: return entry.node
                    case ..<0: low = middle + 1
                    default: high = middle
                    }
                }
                return nil
            }
        }
    }

    /// A route's index for one method (`""` for ANY).
    private struct MethodRoute {
        let method: String
        let index: Int
    }

    private let root = Node()

    /// The routes, each `(method or nil for ANY, template)`.
    /// - Throws: ``APIDefinitionError`` `conflict` when two routes answer the same requests,
    ///   `refused` for a template that is not one.
    init(_ routes: [(method: HTTPRequest.Method?, template: String)]) throws(APIDefinitionError) {
        for (index, route) in routes.enumerated() {
            try add(index, method: route.method?.rawValue ?? "", template: route.template, all: routes)
        }
        root.freeze()
    }

    private func add(_ index: Int, method: String, template: String, all: [(method: HTTPRequest.Method?, template: String)]) throws(APIDefinitionError) {
        guard template.hasPrefix("/") else { throw .refused("paths.\(template)", "a path must start with /") }
        var node = root
        let segments = template.split(separator: "/", omittingEmptySubsequences: true)
        for (position, segment) in segments.enumerated() {
            if segment.hasPrefix("{"), segment.hasSuffix("+}") {
                guard position == segments.count - 1 else { throw .refused("paths.\(template)", "a greedy {name+} must be the last segment") }
                let name = String(segment.dropFirst().dropLast(2))
                var greedy = node.greedy ?? (name, [])
                if let other = Self.exactly(method, in: greedy.routes) { throw APIDefinitionError(.conflict(Self.name(all[other]), Self.name(all[index]))) }
                greedy.routes.append(MethodRoute(method: method, index: index))
                node.greedy = greedy
                return
            }
            if segment.hasPrefix("{"), segment.hasSuffix("}") {
                let name = String(segment.dropFirst().dropLast())
                guard !name.isEmpty, !name.contains("{") else { throw .refused("paths.\(template)", "segment \(segment) is not a {parameter}") }
                if let sibling = node.parameter?.name, sibling != name {
                    throw .refused("paths.\(template)", "{\(name)} sits where another route has {\(sibling)}: one name per position, as API Gateway requires")
                }
                let next = node.parameter?.node ?? Node()
                node.parameter = (name, next)
                node = next
            } else {
                guard !segment.contains("{"), !segment.contains("}") else { throw .refused("paths.\(template)", "segment \(segment) mixes text and a parameter") }
                let literal = Array(segment.utf8)
                let next = node.literals[literal] ?? Node()
                node.literals[literal] = next
                node = next
            }
        }
        if let other = Self.exactly(method, in: node.routes) { throw APIDefinitionError(.conflict(Self.name(all[other]), Self.name(all[index]))) }
        node.routes.append(MethodRoute(method: method, index: index))
    }

    /// The route of `method` itself in `routes` (`""`: the ANY route).
    private static func exactly(_ method: String, in routes: [MethodRoute]) -> Int? {
        routes.first { $0.method == method }?.index
    }

    /// The route of `method` in `routes`, else the ANY route.
    private static func route(_ method: String, in routes: [MethodRoute]) -> Int? {
        var any: Int?
        for route in routes {
            if route.method == method { return route.index }
            if route.method.isEmpty { any = route.index }
        }
        return any
    }

    /// Byte order: negative when `a` sorts before `b`, 0 when they are equal.
    private static func order(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        for (x, y) in zip(a, b) where x != y { return Int(x) - Int(y) }
        return a.count - b.count
    }

    private static func name(_ route: (method: HTTPRequest.Method?, template: String)) -> String {
        "\(route.method?.rawValue ?? "ANY") \(route.template)"
    }

    /// The route for `method` at the path in `bytes`, read segment by segment between `/`s
    /// (empty ones skipped) as it is: the caller decodes it first (`APIDefinition.routeIndex`).
    /// A greedy parameter's value is its segments joined by `/`.
    func match(_ method: HTTPRequest.Method, _ bytes: UnsafeBufferPointer<UInt8>) -> Match? {
        var parameters: [String: String] = [:]
        guard let index = Self.find(root, bytes, from: 0, method.rawValue, &parameters) else { return nil }
        return Match(index: index, parameters: parameters)
    }

    /// Depth first from the segment at or after `offset`, most specific first; parameters
    /// found on a dead end are taken back.
    private static func find(
        _ node: Node, _ bytes: UnsafeBufferPointer<UInt8>, from offset: Int, _ method: String, _ parameters: inout [String: String]
    ) -> Int? {
        let slash = UInt8(ascii: "/")
        var start = offset
        while start < bytes.count, bytes[start] == slash { start += 1 }
        guard start < bytes.count else { return route(method, in: node.routes) }
        var end = start
        while end < bytes.count, bytes[end] != slash { end += 1 }
        let segment = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if let next = node.literal(segment), let found = find(next, bytes, from: end, method, &parameters) { return found }
        if let (name, next) = node.parameter {
            parameters[name] = String(decoding: segment, as: UTF8.self)
            if let found = find(next, bytes, from: end, method, &parameters) { return found }
            parameters[name] = nil
        }
        if let (name, routes) = node.greedy, let found = route(method, in: routes) {
            let rest = String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self)
            parameters[name] = rest.split(separator: "/").joined(separator: "/")
            return found
        }
        return nil
    }
}
