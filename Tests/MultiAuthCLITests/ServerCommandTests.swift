import MultiAuthCLI
import Testing

/// Which executable `multiauth` hands a server command to, decided from its arguments alone:
/// `multiauth-forward` links no OpenAPIKit, Yams or postgres-nio, so `--api`, `--usage-plans`
/// and a PostgreSQL store need `multiauth-server`.
struct ServerCommandTests {
    @Test(arguments: [
        (["proxy", "--upstream", "http://127.0.0.1:9"], true),
        (["gateway", "--api-key", "a=b", "--api-key-file", "k"], true),
        (["gateway", "--iam-store", "s", "--store", "keys.store"], true),
        (["gateway", "--api", "api.yaml"], false),
        (["gateway", "--api=api.yaml"], false),
        (["gateway", "--usage-plans", "p.json"], false),
        (["gateway", "--usage-plans=p.json"], false),
        (["gateway", "--store", "postgres://u@127.0.0.1:1/db"], false),
        (["proxy", "--store=postgresql://u@127.0.0.1:1/db"], false),
        (["authz", "--proxy", "nginx"], false),
        (["help", "proxy"], false),
        ([], false),
    ])
    func theLeanServerRunsProxyAndGatewayWithoutWhatItLeavesOut(arguments: [String], lean: Bool) {
        #expect(ServerCommand.runsInForward(arguments) == lean)
    }
}
