"""``manage.py createumpire``: the first account of a new installation.

Anyone with an account can create a campaign and so be its umpire; this makes that account
without the admin site. The password is read twice from the terminal, or once from standard input
with ``--password-stdin`` (for scripts and containers), and must pass the password validators.
"""

from __future__ import annotations

import getpass
import sys
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction


class Command(BaseCommand):
    help = "Create an account that can log in, create campaigns and umpire them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--password-stdin",
            action="store_true",
            help="Read the password from standard input instead of asking for it.",
        )
        parser.add_argument(
            "--staff", action="store_true", help="Also let the account use the admin site."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        username: str = options["username"].strip()
        user_model = get_user_model()
        if not username:
            raise CommandError("The username may not be empty.")
        if user_model.objects.filter(username=username).exists():
            raise CommandError(f"An account named {username!r} already exists.")
        password = self._password(options["password_stdin"])
        user = user_model(username=username, email=options["email"], is_staff=options["staff"])
        try:
            validate_password(password, user)
        except ValidationError as refused:
            raise CommandError("The password is refused: " + " ".join(refused.messages)) from None
        user.set_password(password)
        with transaction.atomic():
            user.save()
        self.stdout.write(
            f"Created {username}. Log in at /login/ or get a token at /api/v1/auth/token/."
        )

    def _password(self, from_stdin: bool) -> str:
        if from_stdin:
            password = sys.stdin.readline().rstrip("\r\n")
            if not password:
                raise CommandError("No password on standard input.")
            return password
        if not sys.stdin.isatty():
            raise CommandError("No terminal to ask for the password: use --password-stdin.")
        first = getpass.getpass("Password: ")
        if first != getpass.getpass("Password (again): "):
            raise CommandError("The two passwords differ.")
        return first
