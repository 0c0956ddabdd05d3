"""The input guard: body size, broken bodies, JSON depth, surrogates."""

import io
import logging

import fixtures
from gunicorn.http import errors as gunicorn_errors
import testtools
import webob
import webob.dec

from nova_lite.wsgi import request_input
from tests.unit.wsgi import test_layers

DEEP_ARRAY = b'[' * 990 + b']' * 990
DEEP_OBJECT = b'{"a":' * 990 + b'1' + b'}' * 990


class _Raising(io.RawIOBase):
    """A wsgi.input whose read raises ``exc`` (as gunicorn's reader does)."""

    def __init__(self, exc):
        self.exc = exc

    def read(self, size=-1):
        raise self.exc


@webob.dec.wsgify
def _seen(req):
    text = req.body.decode('utf-8', 'replace')
    return webob.Response(json_body={'body': text})


class TestInputGuard(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger(
            name=request_input.__name__, level=logging.DEBUG,
            format='%(levelname)s %(message)s'))
        self.app = request_input.InputGuard(_seen, test_layers.ERRORS,
                                            max_body=1000)

    def _post(self, body=None, headers=None, stream=None):
        req = webob.Request.blank('/x', method='POST')
        if body is not None:
            req.body = body
        if stream is not None:
            req.environ['wsgi.input'] = stream
        for key, value in (headers or {}).items():
            req.headers[key] = value
        return req.get_response(self.app)

    def _assert_400(self, resp, words):
        self.assertEqual(400, resp.status_int, resp.text)
        self.assertIn(words, resp.json['toy'])

    def test_plain_bodies_pass(self):
        for body in (b'{"a": [1, {"b": "\\u00e9"}]}', b'not json', b'{',
                     b'\xff\xfe', '"\\ud83d\\ude00"'.encode()):
            resp = self._post(body)
            self.assertEqual(200, resp.status_int, body)

    def test_get_without_body_passes(self):
        resp = webob.Request.blank('/x').get_response(self.app)
        self.assertEqual({'body': ''}, resp.json)

    def test_get_from_a_terminated_input_passes(self):
        # gunicorn: wsgi.input_terminated, no Content-Length on a GET.
        req = webob.Request.blank('/x')
        req.environ['wsgi.input'] = io.BytesIO(b'')
        req.environ['wsgi.input_terminated'] = True
        self.assertEqual({'body': ''}, req.get_response(self.app).json)

    def test_deep_json_is_400(self):
        app = request_input.InputGuard(_seen, test_layers.ERRORS,
                                       max_body=10 ** 6)
        for body in (DEEP_ARRAY, DEEP_OBJECT,
                     b'[' * 65 + b']' * 65, b'[' * 100000):
            req = webob.Request.blank('/x', method='PUT')
            req.body = body
            self._assert_400(req.get_response(app), 'levels deep')
        req = webob.Request.blank('/x', method='PUT')
        req.body = b'[' * 64 + b']' * 64
        self.assertEqual(200, req.get_response(app).status_int)

    def test_lone_surrogate_anywhere_is_400(self):
        for body in (b'"\\ud800"', b'{"a": {"b": ["x", "\\udfff"]}}',
                     b'{"\\ud800": 1}', b'["ok\\udc00ok"]'):
            self._assert_400(self._post(body), 'lone surrogate')

    def test_too_large_is_413(self):
        resp = self._post(b'x' * 1001)
        self.assertEqual(413, resp.status_int)
        chunked = {'Transfer-Encoding': 'chunked'}
        req = webob.Request.blank('/x', method='POST')
        req.headers.update(chunked)
        req.environ['wsgi.input'] = io.BytesIO(b'y' * 5000)
        req.environ['wsgi.input_terminated'] = True
        self.assertEqual(413, req.get_response(self.app).status_int)

    def test_chunked_body_is_read(self):
        req = webob.Request.blank('/x', method='POST')
        req.headers['Transfer-Encoding'] = 'chunked'
        req.environ['wsgi.input'] = io.BytesIO(b'{"k": 1}')
        req.environ['wsgi.input_terminated'] = True
        self.assertEqual({'body': '{"k": 1}'},
                         req.get_response(self.app).json)

    def test_bad_chunked_encoding_is_400(self):
        for exc in (gunicorn_errors.InvalidChunkSize(b'zz'),
                    gunicorn_errors.ChunkMissingTerminator(b'ab')):
            resp = self._post(
                headers={'Transfer-Encoding': 'chunked'},
                stream=_Raising(exc))
            self._assert_400(resp, 'could not be read')
        self.assertNotIn('Traceback', self.log.output)

    def test_disconnect_logged_at_info_without_traceback(self):
        for exc in (gunicorn_errors.NoMoreData(b''),
                    ConnectionResetError('reset')):
            resp = self._post(headers={'Content-Length': '10'},
                              stream=_Raising(exc))
            self._assert_400(resp, 'disconnected')
        short = self._post(headers={'Content-Length': '10'},
                           stream=io.BytesIO(b'abc'))
        self._assert_400(short, 'disconnected')
        lines = self.log.output.splitlines()
        self.assertEqual(3, len(lines), self.log.output)
        for line in lines:
            self.assertTrue(line.startswith('INFO Client disconnected'),
                            line)
        self.assertNotIn('Traceback', self.log.output)

    def test_bad_content_length_is_400(self):
        req = webob.Request.blank('/x', method='POST')
        req.environ['CONTENT_LENGTH'] = 'ten'
        self._assert_400(req.get_response(self.app), 'Content-Length')
