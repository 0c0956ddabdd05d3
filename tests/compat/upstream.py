"""Fetch and unpack the pinned upstream sources with pip.

``placement_gabbits_dir()`` returns the directory of Placement's gabbi
files from the ``openstack-placement`` sdist, and
``nova_notification_samples_dir()`` that of Nova's notification samples
(``doc/notification_samples``) from the ``nova`` sdist, each downloaded once
into a cache directory (``$NOVA_LITE_COMPAT_CACHE``, default
``~/.cache/nova-lite/compat``) and reused after that.
"""

import glob
import os
import subprocess
import sys
import tarfile

PLACEMENT_VERSION = '16.0.0'
OSC_PLACEMENT_VERSION = '4.9.1'
NOVA_VERSION = '34.0.0'
GABBITS = 'placement/tests/functional/gabbits'
NOTIFICATION_SAMPLES = 'doc/notification_samples'


def cache_dir():
    default = os.path.join(os.path.expanduser('~'), '.cache', 'nova-lite',
                           'compat')
    return os.environ.get('NOVA_LITE_COMPAT_CACHE') or default


def _download_sdist(project, version, dest):
    """The path of ``project``'s sdist, downloaded by pip if missing."""
    pattern = os.path.join(dest, '%s-%s.tar.gz'
                           % (project.replace('-', '_'), version))
    found = glob.glob(pattern)
    if not found:
        os.makedirs(dest, exist_ok=True)
        subprocess.run(
            [sys.executable, '-m', 'pip', 'download', '--quiet', '--no-deps',
             '--no-binary', ':all:', '--dest', dest,
             '%s==%s' % (project, version)],
            check=True)
        found = glob.glob(pattern)
    if not found:
        raise RuntimeError('pip downloaded no sdist matching %s' % pattern)
    return found[0]


def _unpack(archive, dest):
    """Unpack ``archive`` into ``dest`` once; the top directory's path."""
    with tarfile.open(archive) as tar:
        top = tar.getnames()[0].split('/')[0]
        root = os.path.join(dest, top)
        if not os.path.isdir(root):
            tar.extractall(dest, filter='data')
    return root


def placement_gabbits_dir(version=PLACEMENT_VERSION):
    """The gabbits directory of openstack-placement ``version``."""
    base = os.path.join(cache_dir(), 'openstack-placement-%s' % version)
    root = _unpack(_download_sdist('openstack-placement', version, base),
                   base)
    path = os.path.join(root, GABBITS)
    if not os.path.isdir(path):
        raise RuntimeError('no gabbits in %s' % root)
    return path


def nova_notification_samples_dir(version=NOVA_VERSION):
    """The notification samples directory of nova ``version``."""
    base = os.path.join(cache_dir(), 'nova-%s' % version)
    root = _unpack(_download_sdist('nova', version, base), base)
    path = os.path.join(root, NOTIFICATION_SAMPLES)
    if not os.path.isdir(path):
        raise RuntimeError('no notification samples in %s' % root)
    return path
