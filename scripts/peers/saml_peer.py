"""STS's AssumeRoleWithSAML with what moto skips. The assertion's XML signature is verified by
Debian's xmlsec1 (an implementation independent of MultiAuth's and of the IdP's signxml) with the
signing certificate of the identity provider's metadata, fetched from the URL the IAM SAML
provider was made from (--saml-provider ARN=METADATA_URL). Then AWS's documented checks: the
signature covers the assertion used (no wrapping), the Issuer is the provider's entityID, the
audience is urn:amazon:webservices (or a sign-in SAML URL), the assertion is current, the
Role attribute holds the RoleArn/PrincipalArn pair asked for, RoleSessionName is present. An
assertion ID is accepted once (a replay is refused), as the stand-in's documented choice.
"""
import base64
import datetime
import subprocess
import tempfile
import urllib.request

from lxml import etree

NS = {
    "samlp": "urn:oasis:names:tc:SAML:2.0:protocol",
    "saml": "urn:oasis:names:tc:SAML:2.0:assertion",
    "ds": "http://www.w3.org/2000/09/xmldsig#",
    "md": "urn:oasis:names:tc:SAML:2.0:metadata",
}
ATTRIBUTES = "https://aws.amazon.com/SAML/Attributes/"


class Refusal(Exception):
    def __init__(self, status, code, message):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _parser():
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def provider_metadata(url):
    """(entityID, certificate PEM) of the identity provider's metadata."""
    with urllib.request.urlopen(url, timeout=10) as answer:
        root = etree.fromstring(answer.read(), _parser())
    certificate = root.find(".//md:KeyDescriptor[@use='signing']//ds:X509Certificate", NS)
    if certificate is None:
        certificate = root.find(".//ds:X509Certificate", NS)
    body = "".join(certificate.text.split())
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return root.get("entityID"), "-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----\n"


def verify_signature(xml, certificate_pem):
    """True when xmlsec1 verifies the document's first signature with this certificate only."""
    with tempfile.TemporaryDirectory() as folder:
        cert = f"{folder}/idp.pem"
        with open(cert, "w") as handle:
            handle.write(certificate_pem)
        document = f"{folder}/response.xml"
        with open(document, "wb") as handle:
            handle.write(xml)
        result = subprocess.run(
            ["xmlsec1", "--verify", "--pubkey-cert-pem", cert, "--enabled-key-data", "rsa,x509",
             "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:assertion:Assertion",
             "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:protocol:Response", document],
            capture_output=True, timeout=20)
        return result.returncode == 0


def _instant(text):
    return datetime.datetime.strptime(text.split(".")[0].rstrip("Z"), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)


def assume_role_with_saml(form, providers, used_ids, now):
    """(role ARN, session name, duration) for a valid request, else raises Refusal."""
    encoded = form.get("SAMLAssertion", "")
    if not 4 <= len(encoded) <= 100000:
        raise Refusal(400, "ValidationError", "SAMLAssertion must be 4 to 100000 characters")
    role_arn, principal_arn = form.get("RoleArn", ""), form.get("PrincipalArn", "")
    if principal_arn not in providers:
        raise Refusal(400, "InvalidIdentityToken", "No SAML provider " + principal_arn)
    entity_id, certificate = provider_metadata(providers[principal_arn])
    try:
        xml = base64.b64decode(encoded, validate=True)
        root = etree.fromstring(xml, _parser())
    except (ValueError, etree.XMLSyntaxError):
        raise Refusal(400, "MalformedPolicyDocument", "The SAML assertion is not base64 XML")
    assertions = root.findall("saml:Assertion", NS)
    if len(assertions) != 1:
        raise Refusal(400, "InvalidIdentityToken", "The response must hold one assertion")
    assertion = assertions[0]
    signature = assertion.find("ds:Signature", NS)
    reference = signature.find("ds:SignedInfo/ds:Reference", NS) if signature is not None else None
    if reference is None or reference.get("URI") != "#" + assertion.get("ID", ""):
        raise Refusal(400, "InvalidIdentityToken", "The assertion is not signed")
    if not verify_signature(xml, certificate):
        raise Refusal(400, "InvalidIdentityToken", "Signature validation failed for the SAML assertion")
    issuer = assertion.findtext("saml:Issuer", namespaces=NS)
    if issuer != entity_id:
        raise Refusal(400, "InvalidIdentityToken", "The assertion's Issuer is not the provider's")
    audiences = [a.text for a in assertion.findall("saml:Conditions/saml:AudienceRestriction/saml:Audience", NS)]
    if not any(a == "urn:amazon:webservices" or (a or "").endswith("signin.aws.amazon.com/saml") for a in audiences):
        raise Refusal(400, "InvalidIdentityToken", "The assertion's audience is not AWS")
    data = assertion.find("saml:Subject/saml:SubjectConfirmation/saml:SubjectConfirmationData", NS)
    conditions = assertion.find("saml:Conditions", NS)
    ends = [_instant(e.get("NotOnOrAfter")) for e in (data, conditions) if e is not None and e.get("NotOnOrAfter")]
    if not ends or min(ends) <= now:
        raise Refusal(400, "ExpiredTokenException", "Token has expired")
    values = {}
    for attribute in assertion.findall("saml:AttributeStatement/saml:Attribute", NS):
        values.setdefault(attribute.get("Name"), []).extend(v.text or "" for v in attribute.findall("saml:AttributeValue", NS))
    pairs = [set(p.strip() for p in value.split(",")) for value in values.get(ATTRIBUTES + "Role", [])]
    if {role_arn, principal_arn} not in pairs:
        raise Refusal(403, "AccessDenied", "Not authorized to perform sts:AssumeRoleWithSAML")
    session_name = (values.get(ATTRIBUTES + "RoleSessionName") or [""])[0]
    if not session_name:
        raise Refusal(400, "InvalidIdentityToken", "No RoleSessionName attribute")
    assertion_id = assertion.get("ID")
    if assertion_id in used_ids:
        raise Refusal(400, "InvalidIdentityToken", "The assertion was used already")
    used_ids.add(assertion_id)
    duration = form.get("DurationSeconds") or (values.get(ATTRIBUTES + "SessionDuration") or ["3600"])[0]
    return role_arn, session_name, int(duration)
