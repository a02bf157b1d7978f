"""`manage.py superuser` (`make superuser`): an admin account, asked for in Polish.

Django's `createsuperuser` asks half in English ("leave blank to use", "Password (again)"),
and its prompts are not translatable; this asks the same things in Polish and applies the
same rules (unique name, the project's password validators).
"""

import getpass

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

# The prompts, replaceable in tests.
ask = input
ask_secret = getpass.getpass


class Command(BaseCommand):
    help = "Utwórz konto administratora (do /admin/): nazwa, adres e-mail i hasło."

    def add_arguments(self, parser):
        parser.add_argument("--username", help="nazwa użytkownika (bez pytania o nią)")
        parser.add_argument("--email", default=None, help="adres e-mail (bez pytania o niego)")

    def handle(self, *args, username, email, **options):
        users = get_user_model()
        try:
            while not username:
                username = ask("Nazwa użytkownika: ").strip()
                if username and users.objects.filter(username=username).exists():
                    self.stderr.write(f"Konto „{username}” już istnieje; podaj inną nazwę.")
                    username = ""
            if users.objects.filter(username=username).exists():
                raise CommandError(f"Konto „{username}” już istnieje.")
            if email is None:
                email = ask("Adres e-mail (można pominąć): ").strip()
            password = self.ask_password(users(username=username, email=email))
        except (EOFError, KeyboardInterrupt):
            raise CommandError("Przerwano: konto nie zostało utworzone.") from None
        users.objects.create_superuser(username=username, email=email, password=password)
        self.stdout.write(f"Utworzono konto administratora „{username}”: zaloguj się w /admin/.")

    def ask_password(self, user) -> str:
        """A password typed twice alike that passes the project's validators."""
        while True:
            password = ask_secret("Hasło: ")
            if password != ask_secret("Hasło (powtórz): "):
                self.stderr.write("Hasła się różnią; spróbuj jeszcze raz.")
                continue
            try:
                validate_password(password, user)
            except ValidationError as exc:
                for message in exc.messages:
                    self.stderr.write(message)
                continue
            return password
