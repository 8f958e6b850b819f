from django.urls import path

from webhooks.api import views

urlpatterns = [
    path(
        "campaigns/<uuid:campaign_id>/webhooks/",
        views.WebhookListApi.as_view(),
        name="webhook-list",
    ),
    path(
        "campaigns/<uuid:campaign_id>/webhooks/<uuid:webhook_id>/",
        views.WebhookDetailApi.as_view(),
        name="webhook-detail",
    ),
    path(
        "campaigns/<uuid:campaign_id>/webhooks/<uuid:webhook_id>/deliveries/",
        views.WebhookDeliveriesApi.as_view(),
        name="webhook-deliveries",
    ),
    path(
        "campaigns/<uuid:campaign_id>/webhooks/<uuid:webhook_id>/deliveries/<int:delivery_id>/"
        "redeliver/",
        views.DeliveryRedeliverApi.as_view(),
        name="webhook-delivery-redeliver",
    ),
]
