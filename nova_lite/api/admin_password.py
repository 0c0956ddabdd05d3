"""The ``adminPass`` of the responses that (re)create a guest.

Nova answers create, rebuild and evacuate (before 2.14) with the admin
password the caller gave or one it generated, unless ``[api]
enable_instance_password`` is off (for hypervisors that cannot inject
one). The fake driver injects nothing; the password is what the API
promises, as with such a hypervisor.
"""

import secrets
import string

from nova_lite import conf as nl_conf

CONF = nl_conf.CONF

# Nova's password length default; a character from each group at least.
_LENGTH = 12
_GROUPS = (string.digits, string.ascii_uppercase, string.ascii_lowercase)


def generate():
    """A random password with a digit, an upper and a lower case letter."""
    chars = [secrets.choice(group) for group in _GROUPS]
    alphabet = ''.join(_GROUPS)
    chars += [secrets.choice(alphabet)
              for _ in range(_LENGTH - len(chars))]
    secrets.SystemRandom().shuffle(chars)
    return ''.join(chars)


def of_request(args):
    """The caller's ``adminPass``, else a generated one."""
    if 'adminPass' in args:
        return args['adminPass']
    return generate()


def add_to(item, password):
    """``item['adminPass']`` when the deployment returns passwords."""
    if CONF.api.enable_instance_password:
        item['adminPass'] = password
    return item
