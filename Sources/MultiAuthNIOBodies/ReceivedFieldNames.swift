package import HTTPTypes

extension HTTPField.Name {
    /// A name as received, spelled as sent: the common spellings come from names made once
    /// (no check, no lowercased copy), any other is checked and made now; nil when
    /// swift-http-types refuses it. The name's length picks the one or two it could be.
    package static func received(_ name: String) -> HTTPField.Name? {
        let known: HTTPField.Name? =
            switch name.utf8.count {
            case 4: name == "Date" ? .date : name == "Vary" ? .vary : nil
            case 6: name == "Server" ? .server : name == "Accept" ? .accept : nil
            case 9: name == "x-api-key" ? ReceivedNames.apiKey : nil
            case 10:
                name == "X-Amz-Date" ? ReceivedNames.amzDate : name == "User-Agent" ? .userAgent : name == "Connection" ? .connection
                    : name == "Keep-Alive" ? ReceivedNames.keepAlive : nil
            case 12: name == "Content-Type" ? .contentType : nil
            case 13: name == "Authorization" ? .authorization : name == "Cache-Control" ? .cacheControl : nil
            case 14: name == "Content-Length" ? .contentLength : nil
            case 15: name == "Accept-Encoding" ? .acceptEncoding : nil
            case 17: name == "Transfer-Encoding" ? .transferEncoding : nil
            case 20: name == "X-Amz-Content-Sha256" ? ReceivedNames.amzContentSHA256 : name == "X-Amz-Security-Token" ? ReceivedNames.amzSecurityToken : nil
            default: nil
            }
        return known ?? HTTPField.Name(name)
    }
}

/// The common names swift-http-types has no constant for, as clients and AWS SDKs spell them.
private enum ReceivedNames {
    static let apiKey = HTTPField.Name("x-api-key")!
    static let amzDate = HTTPField.Name("X-Amz-Date")!
    static let keepAlive = HTTPField.Name("Keep-Alive")!
    static let amzContentSHA256 = HTTPField.Name("X-Amz-Content-Sha256")!
    static let amzSecurityToken = HTTPField.Name("X-Amz-Security-Token")!
}
