"""Webhooks over HTTP, for the campaign's umpire only.

A webhook receives every event it asks for whole, as the umpire sees it, hidden information
included: only an umpire may register one, list them, read their deliveries or redeliver.
"""

from __future__ import annotations

import uuid

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import signed_in
from campaigns.selectors import require_umpire
from eventlog.api.pagination import (
    OFFSET_PAGE_PARAMETERS,
    SEQUENCE_PAGE_PARAMETERS,
    offset_page,
    offset_page_of,
    sequence_page,
    sequence_page_of,
)
from eventlog.api.serializers import ErrorSerializer
from eventlog.errors import CommandError
from webhooks import selectors, services
from webhooks.api.serializers import (
    DeliverySerializer,
    WebhookCreatedSerializer,
    WebhookInputSerializer,
    WebhookSerializer,
)
from webhooks.models import Delivery

UMPIRE_ONLY = OpenApiResponse(
    ErrorSerializer, description="campaign.umpire_only: only the campaign's umpire may."
)


def _not_found(*codes: str) -> OpenApiResponse:
    return OpenApiResponse(
        ErrorSerializer, description=f"{', '.join(codes)}: no such thing, or not a member."
    )


class WebhookListApi(APIView):
    """The campaign's webhooks; register one."""

    @extend_schema(
        parameters=OFFSET_PAGE_PARAMETERS,
        responses={
            200: offset_page_of(WebhookSerializer),
            403: UMPIRE_ONLY,
            404: _not_found("campaign.not_found"),
        },
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        require_umpire(user=request.user, campaign_id=campaign_id)
        page = offset_page(request, list(selectors.webhooks_list(campaign_id=campaign_id)))
        page["results"] = WebhookSerializer(page["results"], many=True).data
        return Response(page)

    @extend_schema(
        request=WebhookInputSerializer,
        responses={
            201: WebhookCreatedSerializer,
            400: OpenApiResponse(
                ErrorSerializer,
                description="webhook.url_scheme, webhook.url_host, webhook.url_credentials, "
                "webhook.url_port, webhook.url_too_long, webhook.private_address, "
                "webhook.unresolvable, webhook.unknown_event_type, invalid.*",
            ),
            403: UMPIRE_ONLY,
            404: _not_found("campaign.not_found"),
            409: OpenApiResponse(
                ErrorSerializer, description="webhook.too_many: the campaign has the most."
            ),
        },
    )
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        """Every event appended from now on (of ``event_types``, or all) is POSTed to ``url``,
        signed with the secret this answer shows once (docs/webhooks.md)."""
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = WebhookInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        registered = services.webhook_create(
            campaign_id=campaign_id,
            url=body.validated_data["url"],
            event_types=body.validated_data["event_types"],
            actor=signed_in(request),
        )
        shown = WebhookCreatedSerializer(registered.webhook).data
        shown["secret"] = registered.secret
        response = Response(shown, status=status.HTTP_201_CREATED)
        response["Location"] = request.build_absolute_uri(
            reverse("webhook-detail", args=[campaign_id, registered.webhook.id])
        )
        return response


class WebhookDetailApi(APIView):
    """One webhook; delete it to stop its deliveries."""

    @extend_schema(
        responses={
            200: WebhookSerializer,
            403: UMPIRE_ONLY,
            404: _not_found("campaign.not_found", "webhook.not_found"),
        }
    )
    def get(self, request: Request, campaign_id: uuid.UUID, webhook_id: uuid.UUID) -> Response:
        require_umpire(user=request.user, campaign_id=campaign_id)
        webhook = selectors.webhook_get(campaign_id=campaign_id, webhook_id=webhook_id)
        return Response(WebhookSerializer(webhook).data)

    @extend_schema(
        responses={
            204: None,
            403: UMPIRE_ONLY,
            404: _not_found("campaign.not_found", "webhook.not_found"),
        }
    )
    def delete(self, request: Request, campaign_id: uuid.UUID, webhook_id: uuid.UUID) -> Response:
        """Nothing more is sent to it; its deliveries and their log go with it."""
        require_umpire(user=request.user, campaign_id=campaign_id)
        webhook = selectors.webhook_get(campaign_id=campaign_id, webhook_id=webhook_id)
        services.webhook_delete(webhook=webhook, actor=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveriesApi(APIView):
    """A webhook's delivery log: each event queued for it, in the order queued, with every
    attempt (its answer's status, how long it took, or what went wrong)."""

    @extend_schema(
        parameters=[
            *SEQUENCE_PAGE_PARAMETERS,
            OpenApiParameter(
                "status", str, enum=[choice.value for choice in Delivery.Status], required=False
            ),
        ],
        responses={
            200: sequence_page_of(DeliverySerializer),
            403: UMPIRE_ONLY,
            404: _not_found("campaign.not_found", "webhook.not_found"),
        },
    )
    def get(self, request: Request, campaign_id: uuid.UUID, webhook_id: uuid.UUID) -> Response:
        """``after`` is a delivery id: ``next`` carries on from the page's last one."""
        require_umpire(user=request.user, campaign_id=campaign_id)
        webhook = selectors.webhook_get(campaign_id=campaign_id, webhook_id=webhook_id)
        wanted = request.query_params.get("status") or None
        if wanted is not None and wanted not in Delivery.Status.values:
            raise CommandError(
                "invalid.choice",
                f"status must be one of {', '.join(Delivery.Status.values)}.",
                field="status",
            )

        def read(after: int, count: int) -> list[Delivery]:
            return selectors.deliveries_after(
                webhook=webhook, after=after, limit=count, status=wanted
            )

        page = sequence_page(request, read, sequence_of=lambda delivery: delivery.id)
        page["results"] = DeliverySerializer(page["results"], many=True).data
        return Response(page)


class DeliveryRedeliverApi(APIView):
    """Send a delivery's event again."""

    @extend_schema(
        request=None,
        responses={
            202: DeliverySerializer,
            403: UMPIRE_ONLY,
            404: _not_found("campaign.not_found", "webhook.not_found", "delivery.not_found"),
            409: OpenApiResponse(
                ErrorSerializer,
                description="delivery.already_queued: the event is waiting to be sent already.",
            ),
        },
    )
    def post(
        self, request: Request, campaign_id: uuid.UUID, webhook_id: uuid.UUID, delivery_id: int
    ) -> Response:
        """A new delivery of the same event (its own ``Muster-Delivery-Id``) goes in the queue
        in the event's place, before any later event still waiting; a webhook paused after a
        delivery failed every attempt resumes."""
        require_umpire(user=request.user, campaign_id=campaign_id)
        webhook = selectors.webhook_get(campaign_id=campaign_id, webhook_id=webhook_id)
        delivery = selectors.delivery_get(webhook=webhook, delivery_id=delivery_id)
        again = services.delivery_redeliver(delivery=delivery, actor=signed_in(request))
        again = Delivery.objects.prefetch_related("attempt_log").get(pk=again.pk)
        return Response(DeliverySerializer(again).data, status=status.HTTP_202_ACCEPTED)
