"""`make run`'s web server: Django's development server (static files included) with a
listen backlog a class fits in.

Django's server accepts connections from a queue of 10 (socketserver's `listen(10)`): when a
class of 40 presses Sign in or Submit together, the connections past the tenth are reset
before Django sees them. A queue of 1024 (the kernel's `somaxconn` may lower it) keeps them
waiting their turn instead; each is then served on its own thread as before.
"""

from django.contrib.staticfiles.management.commands.runserver import Command as RunserverCommand
from django.core.servers.basehttp import WSGIServer

LISTEN_BACKLOG = 1024


class ClassroomWSGIServer(WSGIServer):
    request_queue_size = LISTEN_BACKLOG


class Command(RunserverCommand):
    help = "Serve the site as runserver does, with a listen backlog of 1024 (make run)."
    server_cls = ClassroomWSGIServer
