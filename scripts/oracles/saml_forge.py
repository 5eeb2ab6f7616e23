#!/usr/bin/env python3
"""Makes bad SAML responses from a good one (base64 on stdin, base64 on stdout), with lxml and
signxml rather than MultiAuth's code: `forge` signs the assertion again with a fresh RSA key and
a self-signed certificate of its own (embedded in KeyInfo, as an attacker would); `unsign`
removes every signature.
"""
import base64
import datetime
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from lxml import etree
from signxml import XMLSigner, methods

NS = {"saml": "urn:oasis:names:tc:SAML:2.0:assertion", "ds": "http://www.w3.org/2000/09/xmldsig#"}


def own_certificate():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "not-the-idp")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
                   .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
    pem_key = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return pem_key, certificate.public_bytes(serialization.Encoding.PEM)


def main():
    root = etree.fromstring(base64.b64decode(sys.stdin.read()))
    for signature in root.iter("{http://www.w3.org/2000/09/xmldsig#}Signature"):
        signature.getparent().remove(signature)
    if sys.argv[1] == "forge":
        assertion = root.find("saml:Assertion", NS)
        key, certificate = own_certificate()
        signer = XMLSigner(method=methods.enveloped, signature_algorithm="rsa-sha256", digest_algorithm="sha256",
                           c14n_algorithm="http://www.w3.org/2001/10/xml-exc-c14n#")
        signed = signer.sign(assertion, key=key, cert=certificate.decode(), reference_uri=assertion.get("ID"))
        root.replace(assertion, signed)
    print(base64.b64encode(etree.tostring(root, xml_declaration=True, encoding="UTF-8")).decode())


if __name__ == "__main__":
    sys.exit(main())
