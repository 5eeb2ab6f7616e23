"""Outbound identity federation's two independent ends:
  web_identity_token.py fetch AUDIENCE ALGORITHM   botocore's own STS client (its serializer and
      parser) calls GetWebIdentityToken with this process's credentials and AWS_ENDPOINT_URL_STS:
      prints {"token": JWT, "expiration": ISO time}
  web_identity_token.py check TOKEN ISSUER AUDIENCE   PyJWT verifies TOKEN with the keys at
      ISSUER's /.well-known/jwks.json, for AUDIENCE and ISSUER: prints the claims, or {"error": ...}
"""
import json
import sys

if sys.argv[1] == "fetch":
    import botocore.session
    client = botocore.session.Session().create_client("sts", region_name="us-east-1")
    answer = client.get_web_identity_token(Audience=[sys.argv[2]], SigningAlgorithm=sys.argv[3], DurationSeconds=300)
    print(json.dumps({"token": answer["WebIdentityToken"], "expiration": answer["Expiration"].isoformat()}))
else:
    import jwt
    token, issuer, audience = sys.argv[2:5]
    try:
        key = jwt.PyJWKClient(issuer + "/.well-known/jwks.json").get_signing_key_from_jwt(token)
        claims = jwt.decode(token, key.key, algorithms=["RS256", "ES384"], audience=audience, issuer=issuer)
        print(json.dumps({key: str(value) for key, value in claims.items()}))
    except Exception as error:
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
