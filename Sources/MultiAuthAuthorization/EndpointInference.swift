/// The signing region and service for API Gateway and AppSync hosts:
/// `*.execute-api.REGION.amazonaws.com` and `*.appsync-api.REGION.amazonaws.com`.
public enum EndpointInference {
    /// (region, service) when `host` is a known AWS API endpoint.
    public static func regionAndService(host: String) -> (region: String, service: String)? {
        let labels = host.lowercased().split(separator: ".")
        guard labels.count >= 5, labels[labels.count - 2] == "amazonaws" else { return nil }
        for (marker, service) in [("execute-api", "execute-api"), ("appsync-api", "appsync")] {
            if let index = labels.firstIndex(where: { $0 == marker }), index + 1 < labels.count {
                return (String(labels[index + 1]), service)
            }
        }
        return nil
    }
}
