"""A software FIDO2 authenticator for the passkey tests: CTAP2 over a UNIX socket, the
transport MultiAuth's libfido2 shims open for a `unix:PATH` device.

Frames in: a command byte, a 4-byte big-endian length, the payload; frames out: the length and
the payload. It answers CTAPHID_INIT (0x06; CBOR capability) and CTAPHID_CBOR (0x10) with
authenticatorGetInfo (0x04), authenticatorMakeCredential (0x01) and authenticatorGetAssertion
(0x02), as CTAP 2.1 §6 has them:
- credentials are ES256 keys made with `cryptography`, kept in memory for the process's life
  (every credential is discoverable); the attestation is "none" (an empty statement);
- authenticator data is rpIdHash ‖ flags (UP, plus AT on creation) ‖ a signature counter ‖
  (on creation) a zero AAGUID, the credential id and its COSE key;
- an assertion signs authenticator data ‖ client data hash with ECDSA-SHA256 (DER);
- an exclude list naming a credential it holds is CTAP2_ERR_CREDENTIAL_EXCLUDED (0x19); no
  credential for the relying party is CTAP2_ERR_NO_CREDENTIALS (0x2E).
There is no user to touch it: user presence is always given, user verification never.
`--log FILE` appends one JSON line per operation (its command and relying party).
"""
import argparse
import hashlib
import json
import os
import secrets
import socket
import struct
import threading

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2 import cbor

CTAPHID_INIT, CTAPHID_CBOR = 0x06, 0x10
MAKE_CREDENTIAL, GET_ASSERTION, GET_INFO = 0x01, 0x02, 0x04
OK, INVALID_COMMAND, CREDENTIAL_EXCLUDED, UNSUPPORTED_ALGORITHM, NO_CREDENTIALS = 0x00, 0x01, 0x19, 0x26, 0x2E
AAGUID = bytes(16)


class Authenticator:
    def __init__(self, log):
        self.credentials = {}  # id -> {rp, key, user, count}
        self.lock = threading.Lock()
        self.log = log

    def info(self, _request):
        return {1: ["FIDO_2_0", "FIDO_2_1"], 3: AAGUID, 4: {"rk": True, "up": True, "plat": False}, 5: 2048, 9: ["usb"]}

    def make_credential(self, request):
        client_hash, rp, user, params = request[1], request[2], request[3], request[4]
        if not any(p.get("alg") == -7 for p in params):
            return UNSUPPORTED_ALGORITHM, None
        for excluded in request.get(5) or []:
            if excluded["id"] in self.credentials and self.credentials[excluded["id"]]["rp"] == rp["id"]:
                return CREDENTIAL_EXCLUDED, None
        key = ec.generate_private_key(ec.SECP256R1())
        numbers = key.public_key().public_numbers()
        cose = cbor.encode({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
        credential_id = secrets.token_bytes(32)
        self.credentials[credential_id] = {"rp": rp["id"], "key": key, "user": user, "count": 0}
        attested = AAGUID + struct.pack(">H", len(credential_id)) + credential_id + cose
        data = hashlib.sha256(rp["id"].encode()).digest() + bytes([0x41]) + struct.pack(">I", 0) + attested
        self.record("makeCredential", rp["id"], client_hash)
        return OK, {1: "none", 2: data, 3: {}}

    def get_assertion(self, request):
        rp_id, client_hash = request[1], request[2]
        allowed = [entry["id"] for entry in request.get(3) or []]
        candidates = [cid for cid, c in self.credentials.items() if c["rp"] == rp_id and (not allowed or cid in allowed)]
        if not candidates:
            return NO_CREDENTIALS, None
        credential_id = candidates[-1]
        credential = self.credentials[credential_id]
        credential["count"] += 1
        data = hashlib.sha256(rp_id.encode()).digest() + bytes([0x01]) + struct.pack(">I", credential["count"])
        signature = credential["key"].sign(data + client_hash, ec.ECDSA(hashes.SHA256()))
        self.record("getAssertion", rp_id, client_hash)
        answer = {1: {"type": "public-key", "id": credential_id}, 2: data, 3: signature, 4: {"id": credential["user"]["id"]}}
        if not allowed:
            answer[5] = len(candidates)
        return OK, answer

    def record(self, operation, rp_id, client_hash):
        if self.log:
            with open(self.log, "a") as out:
                out.write(json.dumps({"operation": operation, "rp": rp_id, "clientDataHash": client_hash.hex()}) + "\n")

    def cbor_command(self, payload):
        if not payload:
            return bytes([INVALID_COMMAND])
        handlers = {GET_INFO: self.info, MAKE_CREDENTIAL: self.make_credential, GET_ASSERTION: self.get_assertion}
        handler = handlers.get(payload[0])
        if handler is None:
            return bytes([INVALID_COMMAND])
        request = cbor.decode(payload[1:]) if len(payload) > 1 else {}
        with self.lock:
            if payload[0] == GET_INFO:
                return bytes([OK]) + cbor.encode(handler(request))
            status, answer = handler(request)
        return bytes([status]) + (cbor.encode(answer) if answer is not None else b"")

    def serve(self, connection):
        with connection:
            while True:
                header = receive(connection, 5)
                if header is None:
                    return
                command, length = header[0], struct.unpack(">I", header[1:])[0]
                payload = receive(connection, length) if length else b""
                if command == CTAPHID_INIT:
                    # nonce, channel id, CTAPHID protocol 2, version 1.0.0, capabilities: CBOR (no MSG).
                    reply = payload + b"\x00\x00\x00\x01" + bytes([2, 1, 0, 0, 0x04 | 0x08])
                elif command == CTAPHID_CBOR:
                    reply = self.cbor_command(payload)
                else:
                    reply = bytes([INVALID_COMMAND])
                connection.sendall(struct.pack(">I", len(reply)) + reply)


def receive(connection, count):
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("socket")
    parser.add_argument("--log")
    arguments = parser.parse_args()
    authenticator = Authenticator(arguments.log)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    partial = arguments.socket + ".binding"
    listener.bind(partial)
    listener.listen(8)
    os.rename(partial, arguments.socket)  # the path appears only once it accepts connections
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=authenticator.serve, args=(connection,), daemon=True).start()


if __name__ == "__main__":
    main()
