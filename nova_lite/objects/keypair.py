"""KeyPair: a user's public key, by name, in the API database."""

from nova_lite.db.api import group_api
from nova_lite.objects import record


class KeyPair(record.Record):
    """A key pair (``type`` is ``ssh`` or ``x509``)."""

    FIELDS = ('id', 'name', 'user_id', 'type', 'public_key', 'fingerprint',
              'created_at', 'updated_at')

    @classmethod
    def get_by_name(cls, context, user_id, name):
        """The user's key pair ``name`` (KeypairNotFound)."""
        return cls._from_row(context, group_api.key_pair_get(
            context, user_id, name))

    @classmethod
    def get_all_by_user(cls, context, user_id):
        """The user's key pairs, by name."""
        return cls._from_rows(context, group_api.key_pair_get_all_by_user(
            context, user_id))

    @classmethod
    def create(cls, context, values):
        """A new key pair (KeyPairExists on a taken name)."""
        return cls._from_row(context,
                             group_api.key_pair_create(context, values))

    @classmethod
    def destroy_by_name(cls, context, user_id, name):
        """Delete the user's key pair ``name`` (KeypairNotFound)."""
        group_api.key_pair_destroy(context, user_id, name)
