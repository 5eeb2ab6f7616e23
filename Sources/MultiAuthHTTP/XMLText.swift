/// Pulls `<Name>value</Name>` out of small AWS XML responses (STS), entities decoded.
package enum XMLText {
    package static func value(of element: String, in xml: String) -> String? {
        guard let start = xml.firstRange(of: "<\(element)>"), let end = xml[start.upperBound...].firstRange(of: "</\(element)>") else {
            return nil
        }
        return String(xml[start.upperBound..<end.lowerBound])
            .replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&quot;", with: "\"")
            .replacing("&apos;", with: "'").replacing("&amp;", with: "&")
    }
}
