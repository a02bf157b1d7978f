"""Accounts: the author autocomplete for editors, the account pages for people who may
change accounts."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.models import User


def is_autocomplete(request) -> bool:
    match = getattr(request, "resolver_match", None)
    return match is not None and match.url_name == "autocomplete"


admin.site.unregister(User)


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    """Accounts: viewing them in the admin takes the right to change them; `view_user` alone
    (the Editors group) only feeds the author autocomplete, which lists active staff."""

    def has_view_permission(self, request, obj=None):
        if is_autocomplete(request):
            return super().has_view_permission(request, obj)
        return self.has_change_permission(request, obj)

    def get_search_results(self, request, queryset, search_term):
        if is_autocomplete(request):
            queryset = queryset.filter(is_active=True, is_staff=True)
        return super().get_search_results(request, queryset, search_term)
