/// XML Canonicalization without comments, the forms XML signatures in SAML digest and sign:
/// sorted declarations and attributes, start and end tags for empty elements, and the
/// standard escapes. Exclusive (W3C, 2002) declares a namespace only where an element or
/// attribute uses it (and for the `InclusiveNamespaces` prefixes); inclusive (Canonical XML
/// 1.0, 2001), what a reference with no canonicalization transform gets, declares every
/// namespace in scope where an output ancestor has not. Inherited `xml:` attributes, which
/// inclusive canonicalization copies onto a subtree's top, are not: SAML messages carry none.
enum CanonicalXML {
    /// The exclusive canonical bytes of `element` and its content. `inclusivePrefixes` is the
    /// `PrefixList` (`#default` names the default namespace).
    static func bytes(of element: SAMLElement, inclusivePrefixes: Set<String> = []) -> [UInt8] {
        var out: [UInt8] = []
        let inclusive = Set(inclusivePrefixes.map { $0 == "#default" ? "" : $0 })
        write(element, rendered: [:], inclusive: inclusive, all: false, to: &out)
        return out
    }

    /// The inclusive canonical bytes of `element` and its content.
    static func inclusiveBytes(of element: SAMLElement) -> [UInt8] {
        var out: [UInt8] = []
        write(element, rendered: [:], inclusive: [], all: true, to: &out)
        return out
    }

    private static func write(_ element: SAMLElement, rendered: [String: String], inclusive: Set<String>, all: Bool, to out: inout [UInt8]) {
        var used: Set<String> = [element.prefix]
        for attribute in element.allAttributes where !attribute.prefix.isEmpty { used.insert(attribute.prefix) }
        used.formUnion(all ? Set(element.namespacesInScope.keys) : inclusive.filter { element.namespacesInScope[$0] != nil })
        var now = rendered
        var declarations: [(prefix: String, uri: String)] = []
        for prefix in used.sorted() where prefix != "xml" {
            let uri = element.namespacesInScope[prefix] ?? ""
            // An empty default namespace needs no declaration unless an output ancestor set another.
            let needed = prefix.isEmpty ? (rendered[""] ?? "") != uri : rendered[prefix] != uri
            guard needed else { continue }
            declarations.append((prefix, uri))
            now[prefix] = uri
        }
        out += Array("<\(element.qualifiedName)".utf8)
        for declaration in declarations {
            out += Array((declaration.prefix.isEmpty ? " xmlns=\"" : " xmlns:\(declaration.prefix)=\"").utf8)
            out += escaped(declaration.uri, attribute: true)
            out.append(UInt8(ascii: "\""))
        }
        let attributes = element.allAttributes.sorted { ($0.namespace, $0.name) < ($1.namespace, $1.name) }
        for attribute in attributes {
            out += Array(" \(attribute.prefix.isEmpty ? attribute.name : attribute.prefix + ":" + attribute.name)=\"".utf8)
            out += escaped(attribute.value, attribute: true)
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: ">"))
        for node in element.content {
            switch node {
            case .text(let text): out += escaped(text, attribute: false)
            case .element(let child): write(child, rendered: now, inclusive: inclusive, all: all, to: &out)
            }
        }
        out += Array("</\(element.qualifiedName)>".utf8)
    }

    private static func escaped(_ text: String, attribute: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out += Array("&amp;".utf8)
            case UInt8(ascii: "<"): out += Array("&lt;".utf8)
            case UInt8(ascii: ">") where !attribute: out += Array("&gt;".utf8)
            case UInt8(ascii: "\"") where attribute: out += Array("&quot;".utf8)
            case 0x09 where attribute: out += Array("&#x9;".utf8)
            case 0x0A where attribute: out += Array("&#xA;".utf8)
            case 0x0D: out += Array("&#xD;".utf8)
            default: out.append(byte)
            }
        }
        return out
    }
}
