"""Key material of key pairs: generation, checking and fingerprints.

Generated pairs are RSA 2048 (the private key is returned once and never
stored): SSH pairs, or x509 ones as Nova makes them for WinRM (a
self-signed client certificate for the user, the private key a base64
PKCS#12 bundle without password). Imported SSH keys must parse as
OpenSSH public keys and x509 ones as PEM certificates. Fingerprints
follow the usual conventions: MD5 of the key blob for SSH, SHA-1 of the
DER certificate for x509, both as colon-separated hex.
"""

import base64
import datetime
import hashlib

from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID
from cryptography.x509.oid import NameOID
from oslo_utils import timeutils

# Microsoft's User Principal Name (a subjectAltName otherName WinRM reads).
_UPN_OID = x509.ObjectIdentifier('1.3.6.1.4.1.311.20.2.3')
_CERT_DAYS = 3650


class InvalidKeypair(ValueError):
    """Key material that does not parse."""


def _colon_hex(digest):
    return ':'.join('%02x' % b for b in digest)


def ssh_fingerprint(public_key):
    try:
        blob = base64.b64decode(public_key.split()[1])
    except (IndexError, ValueError):
        raise InvalidKeypair('Keypair data is invalid: not an OpenSSH '
                             'public key')
    return _colon_hex(hashlib.md5(blob, usedforsecurity=False).digest())


def check_ssh_public_key(public_key):
    """Raise InvalidKeypair unless ``public_key`` is an OpenSSH key."""
    try:
        serialization.load_ssh_public_key(public_key.strip().encode())
    except (ValueError, TypeError, Exception):
        raise InvalidKeypair('Keypair data is invalid: not an OpenSSH '
                             'public key')
    return ssh_fingerprint(public_key)


def x509_fingerprint(pem):
    try:
        cert = x509.load_pem_x509_certificate(pem.encode())
    except ValueError:
        raise InvalidKeypair('Keypair data is invalid: not a PEM x509 '
                             'certificate')
    der = cert.public_bytes(serialization.Encoding.DER)
    return _colon_hex(hashlib.sha1(der, usedforsecurity=False).digest())


def generate_ssh_keypair(comment='Generated-by-Nova-Lite'):
    """(private key PEM, OpenSSH public key, fingerprint)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH,
        serialization.PublicFormat.OpenSSH).decode()
    public = '%s %s' % (public, comment)
    return private, public, ssh_fingerprint(public)


def _der_utf8(text):
    """``text`` as a DER UTF8String (short lengths only)."""
    data = text.encode('utf-8')
    if len(data) > 127:
        raise InvalidKeypair('user id too long for a certificate')
    return bytes([0x0c, len(data)]) + data


def _client_certificate(key, user_id):
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, user_id)])
    now = timeutils.utcnow().replace(tzinfo=datetime.timezone.utc)
    upn = x509.OtherName(_UPN_OID, _der_utf8('%s@localhost' % user_id))
    return (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=_CERT_DAYS))
            .add_extension(x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName([upn]),
                           critical=False)
            .sign(key, hashes.SHA256()))


def generate_x509_keypair(user_id):
    """(base64 PKCS#12 of key and certificate, certificate PEM,
    fingerprint): a WinRM client certificate for ``user_id``."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cert = _client_certificate(key, user_id)
    bundle = pkcs12.serialize_key_and_certificates(
        None, key, cert, None, serialization.NoEncryption())
    pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    return (base64.b64encode(bundle).decode('ascii'), pem,
            x509_fingerprint(pem))
