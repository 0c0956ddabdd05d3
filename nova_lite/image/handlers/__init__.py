"""The image service's request handlers, one module per URL family
(see ``nova_lite.image.router``)."""
