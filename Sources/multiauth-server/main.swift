import MultiAuthServerCLI

await MultiAuthServerCommand.runAsProcess()
