from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from api.models import ApplicationPassword, chunked


class Command(BaseCommand):
    help = (
        "Create an application password for a user (the admin's 'Hasła aplikacji' does the "
        "same) and print it once: for scripts, deployments and tests."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("name", help="what the password is for, e.g. 'import script'")

    def handle(self, *args, username, name, **options):
        User = get_user_model()
        try:
            user = User.objects.get(**{User.USERNAME_FIELD: username})
        except User.DoesNotExist as exc:
            raise CommandError(f"No user {username!r}.") from exc
        if ApplicationPassword.objects.filter(user=user, name__iexact=name).exists():
            raise CommandError(f"{username!r} already has an application password {name!r}.")
        _row, password = ApplicationPassword.objects.issue(user=user, name=name)
        self.stdout.write(chunked(password))
