"""The login page, throttled like the token endpoint."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse

from accounts.throttles import login_wait

TOO_MANY_ATTEMPTS = 429


class ThrottledLoginView(LoginView):
    """Django's login view, refusing attempts over the ``login`` and ``login_username`` rates
    with a 429 page that says how long to wait. Every attempt counts, right or wrong."""

    template_name = "pages/login.html"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        wait = login_wait(request, self)
        if wait is None:
            return super().post(request, *args, **kwargs)
        context = self.get_context_data(
            form=self.get_form_class()(request),
            throttled=f"Too many attempts to log in. Try again in {wait} seconds.",
        )
        response = self.render_to_response(context, status=TOO_MANY_ATTEMPTS)
        response["Retry-After"] = str(wait)
        return response
