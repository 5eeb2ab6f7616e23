import MultiAuthCLI

await MultiAuthCommand.runAsProcess()
