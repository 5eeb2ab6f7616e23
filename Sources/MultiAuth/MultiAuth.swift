// The MultiAuth umbrella module: `import MultiAuth` brings in every public part.
@_exported import MultiAuthCrypto
@_exported import SigV4
@_exported import CredentialStore
@_exported import HTTPTransport
@_exported import CredentialProviders
@_exported import TokenProviders
@_exported import Authorization
@_exported import ClientFactory
