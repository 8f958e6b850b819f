"""``GET /api/v1/``: where a client starts, with a link to every top-level resource."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

# What the root links to: the name in the answer and the URL's name.
LINKS = (
    ("campaigns", "campaign-list"),
    ("campaign_import", "campaign-import"),
    ("invitations", "invitations"),
    ("rulesets", "ruleset-list"),
    ("event_types", "event-types"),
    ("auth_token", "auth-token"),
    ("auth_tokens", "auth-tokens"),
    ("schema", "schema"),
    ("docs", "docs"),
)


class ApiRootSerializer(serializers.Serializer):
    version = serializers.CharField(help_text="The API's version (the /api/v<N>/ in its URLs).")
    links = serializers.DictField(
        child=serializers.URLField(), help_text="Each top-level resource's URL, by name."
    )


class ApiRootApi(APIView):
    """The API's entry point: a link to each top-level resource: the campaigns you belong to
    (``campaigns``; create one there), loading a campaign from its archive
    (``campaign_import``), the invitations waiting for your answer, the rulesets and their
    options, the event types with their JSON Schemas, logging in for a token (``auth_token``)
    and your tokens, and this API's schema and its page. Everything else is reached from a
    campaign: ``/campaigns/{id}/forces/``, ``battles/``, ``events/`` and so on."""

    permission_classes = [AllowAny]

    @extend_schema(responses=ApiRootSerializer)
    def get(self, request: Request) -> Response:
        return Response(
            {
                "version": settings.SPECTACULAR_SETTINGS["VERSION"],
                "links": {
                    name: request.build_absolute_uri(reverse(url_name)) for name, url_name in LINKS
                },
            }
        )
