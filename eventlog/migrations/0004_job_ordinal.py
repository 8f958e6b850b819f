from django.db import migrations, models


def number_existing_jobs(apps, schema_editor):
    Job = apps.get_model("eventlog", "Job")
    counters: dict = {}
    for job in Job.objects.order_by("campaign_id", "requested_at", "id"):
        counters[job.campaign_id] = counters.get(job.campaign_id, 0) + 1
        Job.objects.filter(pk=job.pk).update(ordinal=counters[job.campaign_id])


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0003_streamhead_stream_index")]

    operations = [
        migrations.AddField(
            model_name="job",
            name="ordinal",
            field=models.PositiveIntegerField(
                default=0,
                help_text="The job's number in its campaign; it names the seeded stream of its dice.",
            ),
            preserve_default=False,
        ),
        migrations.RunPython(number_existing_jobs, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="job",
            constraint=models.UniqueConstraint(
                fields=("campaign_id", "ordinal"), name="eventlog_job_ordinal"
            ),
        ),
    ]
