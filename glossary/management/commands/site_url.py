"""`manage.py site_url [URL]`: show or change the site's canonical address (glossary/site.py)."""

from django.conf import settings
from django.contrib.sites.models import Site
from django.core.management.base import BaseCommand, CommandError

from glossary import site


class Command(BaseCommand):
    help = (
        "Show the site's canonical address (the origin of every absolute URL: pages, feeds, "
        "sitemap, REST, MCP over HTTP and stdio), or change it: manage.py site_url "
        "https://slownik.example"
    )

    def add_arguments(self, parser):
        parser.add_argument("url", nargs="?", help="the new origin, e.g. https://slownik.example")

    def handle(self, *args, url=None, **options):
        if url is None:
            self.stdout.write(site.site_url())
            return
        try:
            domain = site.domain_for(url)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        current, _ = Site.objects.update_or_create(
            pk=settings.SITE_ID,
            defaults={"domain": domain},
            create_defaults={"domain": domain, "name": settings.SITE_NAME},
        )
        self.stdout.write(f"Site address: {site.url_for(current.domain)}")
