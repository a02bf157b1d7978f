"""Application passwords: named, revocable credentials an editor gives to a script or an app
for HTTP Basic auth on the REST API, as WordPress 5.6+ has them.

Stored as an HMAC-SHA256 of the password keyed with `SECRET_KEY`, not with Django's password
hashers. Why: the password is 24 random characters from 62 (~143 bits), so a slow hash adds no
protection against guessing, while PBKDF2's 1,000,000 iterations would cost every API request
about half a second of CPU and turn each Basic-auth attempt into a denial-of-service lever.
(WordPress 6.8 moved application passwords to a fast keyed hash for the same reason.) The key
means a copied database alone does not let anyone test guesses offline. The digest is the
lookup key (unique index): comparing digests in the database leaks nothing an attacker can
use, since they cannot choose digests without the key. `SECRET_KEY_FALLBACKS` keep working
after a key rotation; a password found under a fallback key is re-keyed on use.
"""

import secrets
import string

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.crypto import salted_hmac

ALPHABET = string.ascii_letters + string.digits
LENGTH = 24
_SALT = "api.ApplicationPassword"


def digest(password: str, *, secret: str | None = None) -> str:
    return salted_hmac(_SALT, password, secret=secret, algorithm="sha256").hexdigest()


def normalize(password: str) -> str:
    """What the user typed: WordPress shows passwords in groups of four, spaces are ignored."""
    return "".join(password.split())


def chunked(password: str) -> str:
    return " ".join(password[i : i + 4] for i in range(0, len(password), 4))


class ApplicationPasswordQuerySet(models.QuerySet):
    def issue(self, *, user, name: str) -> tuple["ApplicationPassword", str]:
        """A new password for `user`: the row and the plain text, which is never stored."""
        row = self.model(user=user, name=name)
        password = row.set_new_password()
        row.save()
        return row, password

    def matching(self, *, username: str, password: str):
        """Active passwords of the active user `username` equal to `password` (one query;
        current key and fallback keys), with the user loaded."""
        password = normalize(password)
        keys = [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]
        digests = [digest(password, secret=key) for key in keys]
        return self.select_related("user").filter(
            digest__in=digests,
            user__is_active=True,
            **{f"user__{_username_field()}": username},
        )


def _username_field() -> str:
    from django.contrib.auth import get_user_model

    return get_user_model().USERNAME_FIELD


class ApplicationPassword(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="użytkownik",
        on_delete=models.CASCADE,
        related_name="application_passwords",
    )
    name = models.CharField(
        "nazwa",
        max_length=100,
        help_text="Po czym rozpoznasz to hasło, np. nazwa skryptu albo aplikacji.",
    )
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField("utworzono", auto_now_add=True)
    last_used = models.DateTimeField("ostatnio użyte", null=True, blank=True, editable=False)
    last_ip = models.GenericIPAddressField(
        "ostatni adres IP", null=True, blank=True, editable=False
    )

    objects = ApplicationPasswordQuerySet.as_manager()

    class Meta:
        verbose_name = "hasło aplikacji"
        verbose_name_plural = "hasła aplikacji"
        ordering = ["user_id", "-created_at"]
        constraints = [
            models.UniqueConstraint(
                "user",
                Lower("name"),
                name="api_applicationpassword_name_unique_per_user",
                violation_error_message="Masz już hasło aplikacji o tej nazwie.",
                violation_error_code="duplicate_name",
            )
        ]

    def __str__(self) -> str:
        return self.name

    def set_new_password(self) -> str:
        """Draw a new password, keep its digest and return the plain text (shown once)."""
        password = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
        self.digest = digest(password)
        return password
