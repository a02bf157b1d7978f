from django.conf import settings

from .site import site_url


def site(request):
    return {"SITE_NAME": settings.SITE_NAME, "SITE_URL": site_url()}
