"""ASGI entry point: `make run` (which sets DEBUG=1) and, in production, the stream processes
(GET session streams, `subscriptions/listen`, live page events) under uvicorn.

Like config/wsgi.py it fails closed: DEBUG is off unless the environment sets it, so a
deployment that forgets the variable serves no debug pages (and, without SECRET_KEY, does not
start at all). manage.py keeps the settings' development default, so the README's commands in
a checkout need no environment.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "0")

application = get_asgi_application()
