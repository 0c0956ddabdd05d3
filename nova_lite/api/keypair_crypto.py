"""Key material of key pairs: generation, checking and fingerprints.

Generated pairs are RSA 2048 (the private key is returned once and never
stored); imported SSH keys must parse as OpenSSH public keys and x509
ones as PEM certificates. Fingerprints follow the usual conventions: MD5
of the key blob for SSH, SHA-1 of the DER certificate for x509, both as
colon-separated hex.
"""

import base64
import hashlib

from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives import serialization
from cryptography import x509


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
