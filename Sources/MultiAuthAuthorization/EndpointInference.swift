/// The signing region and service for API Gateway, AppSync and Bedrock hosts:
/// `*.execute-api.REGION.amazonaws.com`, `*.appsync-api.REGION.amazonaws.com` and
/// `[….]bedrock(-runtime, -agent, -agent-runtime, -agentcore).REGION.amazonaws.com` (or
/// `.api.aws`), as botocore's
/// models name their signing services, and Lambda function URLs (`ID.lambda-url.REGION.on.aws`,
/// signed for `lambda`).
public enum EndpointInference {
    /// (region, service) when `host` is a known AWS API endpoint.
    public static func regionAndService(host: String) -> (region: String, service: String)? {
        let labels = host.lowercased().split(separator: ".")
        // Bedrock's endpoints, which sign as bedrock (AgentCore's as bedrock-agentcore):
        // [ID.gateway.]SERVICE.REGION.amazonaws.com, and SERVICE.REGION.api.aws (dual-stack).
        if labels.count >= 4, labels.suffix(2) == ["amazonaws", "com"] || (labels.count == 4 && labels.suffix(2) == ["api", "aws"]),
            let service = bedrockServices[String(labels[labels.count - 4])]
        {
            return (String(labels[labels.count - 3]), service)
        }
        // A Lambda function URL: ID.lambda-url.REGION.on.aws.
        if labels.count == 5, labels[1] == "lambda-url", labels[3] == "on", labels[4] == "aws" { return (String(labels[2]), "lambda") }
        guard labels.count >= 5, labels[labels.count - 2] == "amazonaws" else { return nil }
        for (marker, service) in [("execute-api", "execute-api"), ("appsync-api", "appsync")] {
            if let index = labels.firstIndex(where: { $0 == marker }), index + 1 < labels.count {
                return (String(labels[index + 1]), service)
            }
        }
        return nil
    }

    /// Bedrock's endpoint names and the service they sign for.
    private static let bedrockServices = [
        "bedrock": "bedrock", "bedrock-runtime": "bedrock", "bedrock-agent": "bedrock", "bedrock-agent-runtime": "bedrock",
        "bedrock-agentcore": "bedrock-agentcore", "bedrock-agentcore-control": "bedrock-agentcore",
    ]
}
