import MultiAuthSigV4
import Testing

/// Short-term Bedrock API keys. The expected key is what AWS's aws-bedrock-token-generator
/// 1.1.0 (on botocore 1.43.11) printed for these credentials, region, lifetime and time
/// (scripts/oracles/bedrock_key.py generate); the peer test compares more cases at run time.
struct BedrockAPIKeyTests {
    static let credentials = AWSCredentials(
        accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", sessionToken: "TOKEN/with+chars==")

    @Test func theKeyIsTheGeneratorsBytes() throws {
        let key = try PresignedTokens.bedrockAPIKey(
            credentials: Self.credentials, region: "us-west-2", expires: 3600, date: try SigningDate(parsing: "20261129T120000Z"))
        #expect(
            key == "bedrock-api-key-"
                + "YmVkcm9jay5hbWF6b25hd3MuY29tLz9BY3Rpb249Q2FsbFdpdGhCZWFyZXJUb2tlbiZYLUFtei1BbGdvcml0aG09QVdTNC1ITUFDLVNIQTI1NiZYLUFtei1DcmVk"
                + "ZW50aWFsPUFLSURFWEFNUExFJTJGMjAyNjExMjklMkZ1cy13ZXN0LTIlMkZiZWRyb2NrJTJGYXdzNF9yZXF1ZXN0JlgtQW16LURhdGU9MjAyNjExMjlUMTIwMDAw"
                + "WiZYLUFtei1FeHBpcmVzPTM2MDAmWC1BbXotU2lnbmVkSGVhZGVycz1ob3N0JlgtQW16LVNlY3VyaXR5LVRva2VuPVRPS0VOJTJGd2l0aCUyQmNoYXJzJTNEJTNE"
                + "JlgtQW16LVNpZ25hdHVyZT1hZGVmMzUwZTc3ZjI2MTk5OTgzNjEzMzZmNjlkZWQ2YWZmZjA3OWRjOTQxNzYwNWE5NzZkYTRlNGVlMDI0ZjI4JlZlcnNpb249MQ==")
    }

    @Test(arguments: [0, 43_201, -5])
    func aLifetimeOutsideTwelveHoursIsRefused(expires: Int) throws {
        #expect(throws: SigningError.self) {
            try PresignedTokens.bedrockAPIKey(credentials: Self.credentials, region: "us-east-1", expires: expires, date: try SigningDate(parsing: "20261129T120000Z"))
        }
    }

    @Test func aRegionThatIsNotOneIsRefused() throws {
        #expect(throws: SigningError.self) {
            try PresignedTokens.bedrockAPIKey(credentials: Self.credentials, region: "x/y", expires: 60, date: try SigningDate(parsing: "20261129T120000Z"))
        }
    }
}
