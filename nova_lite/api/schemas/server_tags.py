"""Server tags (2.26): a non-empty string of at most 60 characters with
no '/' or ','; at most 50 tags on a server."""

MAX_TAG_COUNT = 50
MAX_TAG_LENGTH = 60

TAG = {'type': 'string', 'pattern': '^[^,/]*$', 'minLength': 1,
       'maxLength': MAX_TAG_LENGTH}

REPLACE = {'type': 'object',
           'properties': {'tags': {'type': 'array', 'items': TAG,
                                   'maxItems': MAX_TAG_COUNT}},
           'required': ['tags'], 'additionalProperties': False}
