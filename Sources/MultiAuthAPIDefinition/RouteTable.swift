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
        var literals: [Substring: Node] = [:]
        var parameter: (name: String, node: Node)?
        var greedy: (name: String, routes: [String: Int])?
        /// Route index by method (`""` for ANY).
        var routes: [String: Int] = [:]
    }

    private let root = Node()

    /// The routes, each `(method or nil for ANY, template)`.
    /// - Throws: ``APIDefinitionError`` `conflict` when two routes answer the same requests,
    ///   `refused` for a template that is not one.
    init(_ routes: [(method: HTTPRequest.Method?, template: String)]) throws(APIDefinitionError) {
        for (index, route) in routes.enumerated() {
            try add(index, method: route.method?.rawValue ?? "", template: route.template, all: routes)
        }
    }

    private func add(_ index: Int, method: String, template: String, all: [(method: HTTPRequest.Method?, template: String)]) throws(APIDefinitionError) {
        guard template.hasPrefix("/") else { throw .refused("paths.\(template)", "a path must start with /") }
        var node = root
        let segments = template.split(separator: "/", omittingEmptySubsequences: true)
        for (position, segment) in segments.enumerated() {
            if segment.hasPrefix("{"), segment.hasSuffix("+}") {
                guard position == segments.count - 1 else { throw .refused("paths.\(template)", "a greedy {name+} must be the last segment") }
                let name = String(segment.dropFirst().dropLast(2))
                var greedy = node.greedy ?? (name, [:])
                if let other = greedy.routes[method] { throw APIDefinitionError(.conflict(Self.name(all[other]), Self.name(all[index]))) }
                greedy.routes[method] = index
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
                let next = node.literals[segment] ?? Node()
                node.literals[segment] = next
                node = next
            }
        }
        if let other = node.routes[method] { throw APIDefinitionError(.conflict(Self.name(all[other]), Self.name(all[index]))) }
        node.routes[method] = index
    }

    private static func name(_ route: (method: HTTPRequest.Method?, template: String)) -> String {
        "\(route.method?.rawValue ?? "ANY") \(route.template)"
    }

    /// The route for `method` at `path`, read segment by segment between `/`s (empty ones
    /// skipped) as it is: the caller decodes it first (`APIDefinition.routeIndex`). A greedy
    /// parameter's value is its segments joined by `/`.
    func match(_ method: HTTPRequest.Method, _ path: Substring) -> Match? {
        var parameters: [String: String] = [:]
        guard let index = Self.find(root, path, method.rawValue, &parameters) else { return nil }
        return Match(index: index, parameters: parameters)
    }

    /// Depth first, most specific first; parameters found on a dead end are taken back.
    private static func find(_ node: Node, _ path: Substring, _ method: String, _ parameters: inout [String: String]) -> Int? {
        guard let (segment, rest) = firstSegment(path) else { return node.routes[method] ?? node.routes[""] }
        if let next = node.literals[segment], let found = find(next, rest, method, &parameters) { return found }
        if let (name, next) = node.parameter {
            parameters[name] = String(segment)
            if let found = find(next, rest, method, &parameters) { return found }
            parameters[name] = nil
        }
        if let (name, routes) = node.greedy, let found = routes[method] ?? routes[""] {
            parameters[name] = path.split(separator: "/").joined(separator: "/")
            return found
        }
        return nil
    }

    /// The first non-empty segment of `path`, and what follows it.
    private static func firstSegment(_ path: Substring) -> (segment: Substring, rest: Substring)? {
        let bytes = path.utf8
        guard let start = bytes.firstIndex(where: { $0 != UInt8(ascii: "/") }) else { return nil }
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
        return (path[start..<end], path[end...])
    }
}
