/// The authorization modes AppSync and API Gateway accept, with AppSync's names: the one
/// mode type, shared by outbound (authorizers, the client factory) and configuration code.
public enum AuthMode: String, Sendable, CaseIterable, Codable {
    case apiKey = "API_KEY"
    case awsIAM = "AWS_IAM"
    case amazonCognitoUserPools = "AMAZON_COGNITO_USER_POOLS"
    case openIDConnect = "OPENID_CONNECT"
    case awsLambda = "AWS_LAMBDA"
}
