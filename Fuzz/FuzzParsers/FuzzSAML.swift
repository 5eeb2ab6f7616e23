// The SAML reader, canonicalization and signature check (SAMLResponse with a provider), and
// the metadata reader, on untrusted XML: the response as its raw XML (the target encodes it).
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCrypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// nanoidp's metadata (Tests/MultiAuthCredentialsTests/Fixtures), whose certificate signed
/// the corpus's response: a mutated response reaches the digest and signature checks.
let fuzzSAMLProvider = try? SAMLIdentityProvider(metadata: Array(#"""
<?xml version='1.0' encoding='UTF-8'?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="http://127.0.0.1:47993/saml">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo>
        <ds:X509Data>
          <ds:X509Certificate>MIIDGzCCAgOgAwIBAgIURy354nBj3jpB33N06sVrLHMB6CkwDQYJKoZIhvcNAQELBQAwPTELMAkGA1UEBhMCREUxEDAOBgNVBAoMB05hbm9JRFAxHDAaBgNVBAMME05hbm9JRFAgU2VsZi1TaWduZWQwHhcNMjYxMTI3MTUyMzU0WhcNMzYxMTI1MTUyMzU0WjA9MQswCQYDVQQGEwJERTEQMA4GA1UECgwHTmFub0lEUDEcMBoGA1UEAwwTTmFub0lEUCBTZWxmLVNpZ25lZDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBALK8MHjDoIVGgHm2e7nBqW7FxC8ED5CkYiZe1NcMi7qhIhcPAmuPaNzyuPwTekmQo2wtY8awrLrBqR7dFNOTDXYACaNLE74MWKFdaMKIU8b/8h2rSsDknrKy+NOxg/C8T8yRVSNgpn/iZXpPMnQRcq9oIHr+RBwYcqGxVWbKAeyjCgDlSDdUyZpvCBwaTt+JBzOXLLDxxeFRBm6lq/xdix7000/A/QkTYycRrsGoRz6ZdrANNe9K6oVDhSALs4v3ZA5CBqrlhuCE/X+byU8+mzhNERwxNivEd4/breWT9Kbyv2HYEuaPyzuXKXM+FsJKSL1yTYkSV/HXEAoCh94EH00CAwEAAaMTMBEwDwYDVR0TAQH/BAUwAwEB/zANBgkqhkiG9w0BAQsFAAOCAQEAsUDOncPsbvpQtM2LdRd0DLdn5UkVMza9cpC0ydoAbRpDXY9laYVjCTvhVuM1PYbdkRy/ZMrnwqDrJEOZEIJFkQ+cifhgd5f+tPj1tGYrxo1rOJmk8Wekw1epIiS/GhpIwf9w+VMdHpvBrTPi6i3/YicRmPiga2TjPQJPHEyYnjLuLEpaXOQAPOmCMm248zY0K/4UqDv2TKxLTRJ9FKTCIlcbGL9QXj026pAGUDlxeeEbaSQEMHnGMLQdoteF/YeD7w03sY/fptMnLLmTu79p0UcCG/89DQJLuXCQOJLL66mkAS+Wn0sLTzZnZd4AG7QPlJxu31+nByfv6JpVz0wz0A==</ds:X509Certificate>
        </ds:X509Data>
      </ds:KeyInfo>
    </md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="http://127.0.0.1:47993/saml/sso"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="http://127.0.0.1:47993/saml/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
"""#.utf8))

func fuzzSAML(_ input: [UInt8]) {
    _ = try? SAMLIdentityProvider(metadata: input)
    let encoded = Base64.encode(input)
    // A minute after the corpus response was issued (2026-11-28T15:40:55Z).
    let now = Date(timeIntervalSince1970: 1_795_880_515)
    if let checked = try? SAMLResponse(encoded: encoded, now: now, identityProvider: fuzzSAMLProvider) {
        _ = checked.description
        _ = try? checked.role(nil, principalArn: nil)
    }
    _ = try? SAMLResponse(encoded: encoded, now: now)
}
