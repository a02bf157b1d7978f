"""HTTP Basic auth with application passwords (api/models.py), as WordPress 5.6+ does it.

`Authorization: Basic base64(username:password)` where the password is one of the user's
application passwords (spaces ignored); the account password never works here. Plain HTTP is
refused when DEBUG is off: the request must be secure as Django sees it, i.e. HTTPS, or HTTP
from a TLS-terminating proxy that sets the header named by SECURE_PROXY_SSL_HEADER (WordPress
likewise makes application passwords available only over SSL, or on a local environment,
which DEBUG stands for here). Failed attempts are throttled per address and per username
(api/throttling.py). A successful use records `last_used` and `last_ip`, written at most once
a minute per password unless the address changes (a write on every request would cost more
than the request).
"""

import hashlib
import ipaddress
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import BasicAuthentication

from .models import ApplicationPassword, digest, normalize
from .throttling import FailedAuthByAddress, FailedAuthByUsername

USAGE_EVERY = timedelta(minutes=1)
REALM = "Slownik REST API"


class ApplicationPasswordAuthentication(BasicAuthentication):
    www_authenticate_realm = REALM

    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if header[:6].lower() != "basic ":
            return None
        if not (settings.DEBUG or request.is_secure()):
            raise exceptions.AuthenticationFailed(
                "Hasła aplikacji działają tylko przez HTTPS. To hasło przeszło otwartym "
                "tekstem: usuń je w panelu i utwórz nowe.",
                code="rest_application_passwords_https_required",
            )
        by_address = FailedAuthByAddress()
        address = by_address.get_ident(request)
        self._throttle(by_address, address)
        self._address = address
        return super().authenticate(request)

    def authenticate_credentials(self, userid, password, request=None):
        by_user = FailedAuthByUsername()
        # Hashed: a username is any text, cache keys must be short and printable.
        user_key = hashlib.blake2b(userid.encode(), digest_size=16).hexdigest()
        self._throttle(by_user, user_key)
        row = None
        if "\x00" not in userid and "\x00" not in password:  # PostgreSQL rejects NUL
            row = ApplicationPassword.objects.matching(username=userid, password=password).first()
        if row is None:
            FailedAuthByAddress().fail(self._address)
            by_user.fail(user_key)
            raise exceptions.AuthenticationFailed(
                "Nieznana nazwa użytkownika albo błędne hasło aplikacji.",
                code="rest_invalid_application_password",
            )
        self._record_use(row, password)
        return row.user, row

    @staticmethod
    def _throttle(throttle, ident: str) -> None:
        wait = throttle.wait_for(ident)
        if wait is not None:
            raise exceptions.Throttled(wait=wait)

    def _record_use(self, row: ApplicationPassword, password: str) -> None:
        now = timezone.now()
        try:
            address = str(ipaddress.ip_address(self._address))
        except ValueError:  # a proxy header that is not an address
            address = None
        current = digest(normalize(password))
        if row.digest != current:  # found under a SECRET_KEY_FALLBACKS key: re-key it
            ApplicationPassword.objects.filter(pk=row.pk).update(digest=current)
        stale = row.last_used is None or row.last_used < now - USAGE_EVERY
        if stale or row.last_ip != address:
            ApplicationPassword.objects.filter(pk=row.pk).update(last_used=now, last_ip=address)
