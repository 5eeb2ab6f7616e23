import MultiAuthForwardingCLI

await MultiAuthForwardCommand.runAsProcess()
