import Foundation
import IntegrationSupport
import MultiAuthAppSync
import MultiAuthAuthorization
import MultiAuthCore
import Testing

/// awsconfiguration.json parsing and validation: every message names the file and the JSON
/// path, in the AppSync SDK's order of checks.
@Suite(.timeLimit(.minutes(5))) struct ConfigurationTests {
    func parse(_ text: String) throws(ConfigurationError) -> AWSConfiguration {
        try AWSConfiguration.parse(Array(text.utf8), file: "cfg.json")
    }

    func firstProblem(_ text: String) -> String {
        do { return try parse(text).validated().appSync.isEmpty ? "no entries" : "valid" } catch { return error.description }
    }

    @Test func aValidFileWithEverySection() throws {
        let configuration = try parse("""
            {"AppSync": {"Default": {"ApiUrl": "https://abc.appsync-api.us-east-1.amazonaws.com/graphql", "Region": "us-east-1",
                                     "AuthMode": "API_KEY", "ApiKey": "k", "ClientDatabasePrefix": "App_API_KEY"},
                         "App_AWS_IAM": {"ApiUrl": "https://abc.appsync-api.us-east-1.amazonaws.com/graphql", "Region": "us-east-1",
                                         "AuthMode": "AWS_IAM", "ClientDatabasePrefix": "App_AWS_IAM"}},
             "CognitoUserPool": {"Default": {"PoolId": "us-east-1_x", "AppClientId": "c", "Region": "us-east-1"}},
             "CredentialsProvider": {"CognitoIdentity": {"Default": {"PoolId": "us-east-1:1", "Region": "us-east-1"}}},
             "OIDC": {"Default": {"Issuer": "https://issuer", "ClientId": "cli"}}}
            """).validated()
        #expect(configuration.appSync.map(\.name) == ["App_AWS_IAM", "Default"])
        #expect(try configuration.entry(for: .awsIAM).clientDatabasePrefix == "App_AWS_IAM")
        #expect(configuration.userPool?.poolId == "us-east-1_x")
        #expect(configuration.identityPool?.poolId == "us-east-1:1")
        #expect(configuration.oidc?.issuer == "https://issuer")
        let entry = try configuration.entry(named: "Default")
        #expect(!"\(entry)".contains("\"k\"") && "\(entry)".contains("apiKey: <redacted>"))
    }

    @Test func invalidJSONIsReportedWithLineAndColumn() {
        #expect(firstProblem("{\n  \"AppSync\": {\n    \"Default\": ]\n}") == "cfg.json:3:16: invalid JSON: unexpected character ']'")
        #expect(firstProblem("{\"AppSync\": {}") == "cfg.json:1:15: invalid JSON: unexpected end of file")
        #expect(firstProblem("{} x") == "cfg.json:1:4: invalid JSON: unexpected text after the value")
    }

    @Test func problemsNameTheJSONPathInTheSDKsOrder() {
        let url = "\"ApiUrl\": \"https://a/graphql\""
        #expect(firstProblem("{}") == "cfg.json: AppSync: missing")
        #expect(firstProblem("{\"AppSync\": {}}") == "cfg.json: AppSync: has no entries")
        #expect(firstProblem("{\"AppSync\": {\"friendly_name_AWS_IAM\": {\"Region\": \"r\"}}}") == "cfg.json: AppSync.friendly_name_AWS_IAM.ApiUrl: missing")
        #expect(firstProblem("{\"AppSync\": {\"friendly_name_AWS_IAM\": {\(url)}}}") == "cfg.json: AppSync.friendly_name_AWS_IAM.Region: missing")
        #expect(firstProblem("{\"AppSync\": {\"E\": {\(url), \"Region\": \"r\"}}}") == "cfg.json: AppSync.E.AuthMode: missing")
        #expect(
            firstProblem("{\"AppSync\": {\"E\": {\(url), \"Region\": \"r\", \"AuthMode\": \"PASSWORD\"}}}")
                == "cfg.json: AppSync.E.AuthMode: unknown mode 'PASSWORD' (expected API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT, AWS_LAMBDA)")
        #expect(firstProblem("{\"AppSync\": {\"E\": {\(url), \"Region\": \"r\", \"AuthMode\": \"API_KEY\"}}}") == "cfg.json: AppSync.E.ApiKey: missing")
        #expect(
            firstProblem("{\"AppSync\": {\"E\": {\(url), \"Region\": \"r\", \"AuthMode\": \"AWS_IAM\", \"ClientDatabasePrefix\": \"my-app\"}}}")
                == "cfg.json: AppSync.E.ClientDatabasePrefix: 'my-app' must match ^[_a-zA-Z0-9]+$")
        let entry = "{\(url), \"Region\": \"r\", \"AuthMode\": \"AWS_IAM\", \"ClientDatabasePrefix\": \"Same\"}"
        #expect(
            firstProblem("{\"AppSync\": {\"A\": \(entry), \"B\": \(entry)}}")
                == "cfg.json: AppSync entries A and B share ClientDatabasePrefix 'Same'; each client needs its own")
    }

    /// Each shared prefix is one problem naming its entries in name order; problems come in
    /// prefix order, and a prefix used once is none.
    @Test func everySharedPrefixIsOneProblemInPrefixOrder() throws {
        func entry(_ prefix: String) -> String {
            "{\"ApiUrl\": \"https://a/graphql\", \"Region\": \"r\", \"AuthMode\": \"AWS_IAM\", \"ClientDatabasePrefix\": \"\(prefix)\"}"
        }
        let configuration = try parse(
            "{\"AppSync\": {\"D\": \(entry("Alpha")), \"C\": \(entry("Zed")), \"B\": \(entry("Alpha")), \"A\": \(entry("Zed")), \"E\": \(entry("Solo"))}}")
        #expect(configuration.problems.map(\.description) == [
            "cfg.json: AppSync entries B and D share ClientDatabasePrefix 'Alpha'; each client needs its own",
            "cfg.json: AppSync entries A and C share ClientDatabasePrefix 'Zed'; each client needs its own",
        ])
    }

    @Test func oneBadEntryDoesNotHideTheGoodOnes() throws {
        let configuration = try parse("""
            {"AppSync": {"Good": {"ApiUrl": "https://a/graphql", "Region": "r", "AuthMode": "AWS_IAM"},
                         "Bad": {"ApiUrl": "https://a/graphql", "Region": "r", "AuthMode": "API_KEY"}}}
            """)
        #expect(configuration.appSync.map(\.name) == ["Good"])
        #expect(configuration.problems.map(\.description) == ["cfg.json: AppSync.Bad.ApiKey: missing"])
        #expect(throws: ConfigurationError.self) { try configuration.entry(named: "Bad") }
    }

    @Test func realtimeEndpoints() {
        #expect(
            RealtimeHandshake.realtimeEndpoint(for: "https://abc.appsync-api.eu-west-1.amazonaws.com/graphql")
                == "wss://abc.appsync-realtime-api.eu-west-1.amazonaws.com/graphql")
        #expect(RealtimeHandshake.realtimeEndpoint(for: "https://api.example.com/graphql") == "wss://api.example.com/graphql/realtime")
    }
}
