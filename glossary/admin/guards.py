"""What keeps an editor's save safe: the edited version a form carries (a save over someone
else's newer edit is refused, not lost) and the confirmation of warnings before saving."""

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.utils import formats, timezone

HISTORY_FIELDS = ("created_at", "updated_at", "last_editor")
EDITED_VERSION = "edited_version"
EDITED_ELSEWHERE = (
    "Od otwarcia tego formularza wpis zapisał(a) {who} ({when}). Twoje zmiany NIE zostały "
    "zapisane: są w formularzu poniżej. Porównaj je z historią zmian; ponowne „Zapisz” "
    "zastąpi tamtą wersję Twoją."
)


def _edit_version(updated_at) -> str:
    return updated_at.isoformat() if updated_at else ""


def guarded_form(form_class):
    """`form_class` with the lost-update guard of the change form: a hidden field carries
    the entry's `updated_at` as the form showed it; saving compares it with the row, locked
    until the save commits (the admin's change view is one transaction), and refuses when
    someone else saved in between. The form comes back with everything the editor typed and
    the row's current version in the hidden field, so saving again is a conscious overwrite.
    A POST without the field (a script, not the rendered form) is not checked."""

    class Guarded(form_class):
        edited_version = forms.CharField(widget=forms.HiddenInput, required=False)

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            if self.instance.pk is not None:
                self.fields[EDITED_VERSION].initial = _edit_version(self.instance.updated_at)

        def clean(self):
            cleaned = super().clean()
            key = self.add_prefix(EDITED_VERSION)
            sent = self.data.get(key)
            if self.instance.pk is None or sent is None:
                return cleaned
            model = type(self.instance)
            row = (
                model._default_manager.select_for_update()
                .filter(pk=self.instance.pk)
                .values("updated_at", "last_editor_id")
                .first()
            )
            if row is None or sent == _edit_version(row["updated_at"]):
                return cleaned
            editor = User.objects.filter(pk=row["last_editor_id"]).first()
            who = (editor.get_full_name() or editor.get_username()) if editor else "ktoś inny"
            when = formats.date_format(timezone.localtime(row["updated_at"]), "j E Y, H:i:s")
            self.data = self.data.copy()
            self.data[key] = _edit_version(row["updated_at"])
            raise ValidationError(
                EDITED_ELSEWHERE.format(who=who, when=when), code="edited_elsewhere"
            )

    Guarded.__name__ = form_class.__name__
    return Guarded


CONFIRMED = "confirm_warnings"


def confirmed_form(form_class):
    """`form_class` (collecting `warnings`, as `TermAdminForm` does) that shows them before
    saving: a form with warnings is sent back with them until the editor ticks "Zapisz mimo
    ostrzeżeń"; then it saves and the admin repeats them as warning messages."""

    class Confirmed(form_class):
        confirm_warnings = forms.BooleanField(
            label="Zapisz mimo ostrzeżeń",
            required=False,
            help_text="Zaznacz, jeśli ostrzeżenia nad formularzem dotyczą czegoś zamierzonego.",
        )

        def clean(self):
            cleaned = super().clean()
            warnings = getattr(self, "warnings", [])
            if warnings and not cleaned.get(CONFIRMED):
                raise ValidationError(
                    [ValidationError(w, code="needs_confirmation") for w in warnings]
                )
            return cleaned

    Confirmed.__name__ = form_class.__name__
    return Confirmed
