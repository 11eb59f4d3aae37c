"""The ASGI application: what the web server runs (uvicorn, or gunicorn with
``config.asgi.UvicornWorker``). Live streams and long-polls wait in its event
loop instead of holding a worker each (docs/architecture.md, "Live updates")."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()
