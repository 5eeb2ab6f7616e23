import MultiAuthAuthorization
import Testing

/// The region and signing service a host implies. Bedrock's are botocore 1.43.11's models
/// (each client's endpoint URL and `signing_name` for eu-west-1).
struct EndpointInferenceTests {
    @Test(arguments: [
        ("abc123.execute-api.us-east-1.amazonaws.com", "us-east-1", "execute-api"),
        ("xyz.appsync-api.eu-west-2.amazonaws.com", "eu-west-2", "appsync"),
        ("bedrock.eu-west-1.amazonaws.com", "eu-west-1", "bedrock"),
        ("bedrock-runtime.eu-west-1.amazonaws.com", "eu-west-1", "bedrock"),
        ("bedrock-agent.eu-west-1.amazonaws.com", "eu-west-1", "bedrock"),
        ("bedrock-agent-runtime.eu-west-1.amazonaws.com", "eu-west-1", "bedrock"),
        ("bedrock-agentcore.eu-west-1.amazonaws.com", "eu-west-1", "bedrock-agentcore"),
        ("bedrock-agentcore-control.eu-west-1.amazonaws.com", "eu-west-1", "bedrock-agentcore"),
        // AgentCore Gateway's hosts (mcp-proxy-for-aws 1.7.0 matches the same suffix) and a dual-stack endpoint.
        ("gw-0123.gateway.bedrock-agentcore.us-west-2.amazonaws.com", "us-west-2", "bedrock-agentcore"),
        ("bedrock-runtime.ap-south-1.api.aws", "ap-south-1", "bedrock"),
        // AWS's Lambda documentation: function URLs are signed for lambda.
        ("abcdefghij0123456789abcdef.lambda-url.us-east-2.on.aws", "us-east-2", "lambda"),
    ])
    func knownHostsNameTheirScope(host: String, region: String, service: String) throws {
        let inferred = try #require(EndpointInference.regionAndService(host: host))
        #expect(inferred.region == region && inferred.service == service)
    }

    @Test(arguments: ["bedrock.example.com", "s3.us-east-1.amazonaws.com", "bedrock-runtime.amazonaws.com", "bedrock-runtime.eu-west-1.amazonaws.com.evil.example"])
    func otherHostsNameNone(host: String) {
        #expect(EndpointInference.regionAndService(host: host) == nil)
    }
}
