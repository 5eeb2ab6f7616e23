// The MultiAuth umbrella module: `import MultiAuth` brings in every public part, and the
// swift-http-types and swift-log vocabulary its API speaks.
@_exported import HTTPTypes
@_exported import Logging
@_exported import MultiAuthAppSync
@_exported import MultiAuthAppSyncEvents
@_exported import MultiAuthAuthorization
@_exported import MultiAuthAWSClient
@_exported import MultiAuthCachedSessions
@_exported import MultiAuthClientConfiguration
@_exported import MultiAuthCore
@_exported import MultiAuthCredentials
@_exported import MultiAuthCurl
@_exported import MultiAuthInboundAuthorization
@_exported import MultiAuthKMSStoreKeys
@_exported import MultiAuthLogins
@_exported import MultiAuthRealtime
@_exported import MultiAuthSigV4
@_exported import MultiAuthStore
@_exported import MultiAuthTokens
@_exported import MultiAuthWebAuthn
