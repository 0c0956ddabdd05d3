"""The image service's data: one file per image under ``[image_catalog]
store_path``.

An upload streams into a temporary file next to its final name, hashing
as it goes (MD5 for Glance's ``checksum``, SHA-512 for ``os_hash_value``),
and is renamed into place only once it is whole and within the size cap,
so a reader never sees half an image and a failed upload leaves nothing.
"""

import hashlib
import os

from oslo_utils import uuidutils

CHUNK = 65536
HASH_ALGO = 'sha512'


class TooLarge(Exception):
    """The data exceeds the size cap."""


class Stored:
    """What an upload stored: size, md5 checksum, sha512 hash."""

    def __init__(self, size, checksum, os_hash_value):
        self.size = size
        self.checksum = checksum
        self.os_hash_algo = HASH_ALGO
        self.os_hash_value = os_hash_value


def _directory(conf):
    return conf.image_catalog.store_path


def path(conf, image_id):
    """The file holding the data of ``image_id`` (a UUID)."""
    if not uuidutils.is_uuid_like(image_id):
        raise ValueError('not an image id: %r' % image_id)
    return os.path.join(_directory(conf), image_id)


def staging_path(conf, image_id):
    """Where ``PUT .../stage`` keeps an image's data until its
    ``glance-direct`` import moves it into the store."""
    return os.path.join(_directory(conf), 'staging', os.path.basename(
        path(conf, image_id)))


def write(conf, image_id, stream, size_cap, staging=False):
    """Store what ``stream`` (a file-like object) holds as the data of
    ``image_id`` (in the staging area with ``staging``);
    :class:`TooLarge` past ``size_cap`` bytes."""
    final = (staging_path if staging else path)(conf, image_id)
    os.makedirs(os.path.dirname(final), exist_ok=True)
    partial = '%s.%s.part' % (final, uuidutils.generate_uuid())
    md5 = hashlib.md5(usedforsecurity=False)
    sha = hashlib.new(HASH_ALGO)
    size = 0
    try:
        with open(partial, 'wb') as out:
            while True:
                chunk = stream.read(CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                if size > size_cap:
                    raise TooLarge()
                md5.update(chunk)
                sha.update(chunk)
                out.write(chunk)
        os.replace(partial, final)
    except BaseException:
        _remove(partial)
        raise
    return Stored(size, md5.hexdigest(), sha.hexdigest())


def exists(conf, image_id):
    return os.path.isfile(path(conf, image_id))


def chunks(conf, image_id, start=0, length=None):
    """The data of ``image_id``, chunk by chunk (OSError when gone):
    ``length`` bytes from ``start`` (to the end without ``length``)."""
    return read_file(path(conf, image_id), start, length)


def read_file(name, start=0, length=None):
    """The file ``name``, chunk by chunk: ``length`` bytes from ``start``
    (OSError when it cannot be opened)."""
    handle = open(name, 'rb')
    handle.seek(start)

    def read():
        left = length
        with handle:
            while left is None or left > 0:
                chunk = handle.read(CHUNK if left is None
                                    else min(CHUNK, left))
                if not chunk:
                    return
                if left is not None:
                    left -= len(chunk)
                yield chunk
    return read()


def delete(conf, image_id):
    """Remove the data of ``image_id``, staged or stored (nothing when
    there is none)."""
    _remove(path(conf, image_id))
    _remove(staging_path(conf, image_id))


def _remove(name):
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass
