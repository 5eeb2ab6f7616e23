// The MultiAuth umbrella module: `import MultiAuth` brings in every public part, and the
// swift-http-types and swift-log vocabulary its API speaks.
@_exported import HTTPTypes
@_exported import Logging
@_exported import MultiAuthCore
@_exported import SigV4
@_exported import CredentialStore
@_exported import HTTPTransport
@_exported import MultiAuthAWSClient
@_exported import CredentialProviders
@_exported import CachedSessions
@_exported import KMSStoreKeys
@_exported import TokenProviders
@_exported import Logins
@_exported import Authorization
@_exported import ClientConfiguration
@_exported import ClientFactory
@_exported import Realtime
@_exported import AppSyncEvents
@_exported import InboundAuthorization
