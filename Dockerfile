# Two images from one file: `web` (no torch) and `worker` (torch + the sandbox).
FROM python:3.11-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends libseccomp2 \
    && rm -rf /var/lib/apt/lists/*

FROM base AS web
COPY requirements/web.lock requirements/web.lock
RUN pip install --no-cache-dir -r requirements/web.lock
COPY . .
RUN DEBUG=true python manage.py collectstatic --noinput
USER nobody

FROM base AS worker
COPY requirements/all.lock requirements/all.lock
RUN pip install --no-cache-dir -r requirements/all.lock
COPY . .
