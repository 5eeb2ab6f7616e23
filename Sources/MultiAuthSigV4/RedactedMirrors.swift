import MultiAuthCore

// What `dump` and debuggers show of the types that hold a secret somewhere inside (the
// credentials, derived keys, a session token, a signed request): the parts that are not
// secret, and the credentials through their own redacted mirror.

extension SigV4Signer: CustomReflectable {
    /// The credentials (redacted), region or region set, service and algorithm.
    public var customMirror: Mirror {
        Mirror(self, children: ["credentials": credentials, "region": region, "service": service, "algorithm": setup.algorithm.name])
    }
}

extension SigningResult: CustomReflectable {
    /// The scope, the signed headers and the canonical request with secret values replaced;
    /// not the signature or the signed request, which carry what authorizes it.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "credentialScope": credentialScope, "signedHeaders": signedHeaders,
            "canonicalRequest": Redaction.canonicalText(canonicalRequest),
        ])
    }
}

extension SigV4Verifier: CustomReflectable {
    /// The region, service and allowed skew; not the credentials it knows.
    public var customMirror: Mirror {
        Mirror(self, children: ["region": region, "service": service, "allowedSkew": allowedSkew])
    }
}
