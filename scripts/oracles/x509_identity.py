"""Makes a Roles Anywhere client identity with `cryptography` (independent of MultiAuth's
OpenSSL code): a leaf certificate issued by the given CA (directly, or through a new
intermediate CA with --intermediate), valid from --valid-from to --valid-until days from now,
and its key in every form MultiAuth reads.

Writes into --out: cert.pem, chain.pem (the intermediate, when made), key-traditional.pem
(PKCS#1 or SEC1), key-pkcs8.pem, key-encrypted.pem (PKCS#8 under --passphrase), bundle.p12
(key, leaf and chain under --passphrase). Prints {"serial": decimal} as JSON.
"""
import argparse
import datetime
import json
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID


def new_key(kind):
    return rsa.generate_private_key(public_exponent=65537, key_size=2048) if kind == "rsa" else ec.generate_private_key(ec.SECP256R1())


def issue(subject_key, name, issuer_cert, issuer_key, ca, valid_from, valid_until):
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
               .issuer_name(issuer_cert.subject)
               .public_key(subject_key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now + datetime.timedelta(days=valid_from))
               .not_valid_after(now + datetime.timedelta(days=valid_until))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    return builder.sign(issuer_key, hashes.SHA256())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--ca-cert", required=True)
    parser.add_argument("--ca-key", required=True)
    parser.add_argument("--kind", choices=["rsa", "ec"], default="ec")
    parser.add_argument("--valid-from", type=float, default=-1)
    parser.add_argument("--valid-until", type=float, default=1)
    parser.add_argument("--intermediate", action="store_true")
    parser.add_argument("--passphrase", default="identity-passphrase")
    args = parser.parse_args()
    with open(args.ca_cert, "rb") as f:
        issuer_cert = x509.load_pem_x509_certificate(f.read())
    with open(args.ca_key, "rb") as f:
        issuer_key = serialization.load_pem_private_key(f.read(), password=None)
    chain = []
    if args.intermediate:
        intermediate_key = new_key("ec")
        intermediate = issue(intermediate_key, "MultiAuth test intermediate", issuer_cert, issuer_key, True, -1, 2)
        chain.append(intermediate)
        issuer_cert, issuer_key = intermediate, intermediate_key
    key = new_key(args.kind)
    leaf = issue(key, "multiauth-test-host", issuer_cert, issuer_key, False, args.valid_from, args.valid_until)
    pem = serialization.Encoding.PEM
    files = {
        "cert.pem": leaf.public_bytes(pem),
        "key-traditional.pem": key.private_bytes(pem, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()),
        "key-pkcs8.pem": key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
        "key-encrypted.pem": key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                               serialization.BestAvailableEncryption(args.passphrase.encode())),
        "bundle.p12": pkcs12.serialize_key_and_certificates(b"multiauth", key, leaf, chain or None,
                                                            serialization.BestAvailableEncryption(args.passphrase.encode())),
    }
    if chain:
        files["chain.pem"] = b"".join(c.public_bytes(pem) for c in chain)
    os.makedirs(args.out, exist_ok=True)
    for name, data in files.items():
        path = os.path.join(args.out, name)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
            f.write(data)
    print(json.dumps({"serial": str(leaf.serial_number)}))


if __name__ == "__main__":
    main()
