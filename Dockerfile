# Two images from one file: `web` (no torch) and `worker` (torch + the sandbox).

# The pages' browser assets (htmx, KaTeX, CodeMirror, the page modules), bundled as
# `make install` bundles them: vendor/ is build output that git does not hold.
FROM node:20-slim AS assets
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
COPY scripts/build-assets.mjs scripts/build-assets.mjs
COPY assets assets
RUN mkdir -p vendor/app && node scripts/build-assets.mjs

FROM python:3.11-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends libseccomp2 \
    && rm -rf /var/lib/apt/lists/*

FROM base AS web
COPY requirements/web.lock requirements/web.lock
RUN pip install --no-cache-dir -r requirements/web.lock
COPY . .
COPY --from=assets /app/vendor/app vendor/app
RUN DEBUG=true python manage.py collectstatic --noinput
USER nobody

FROM base AS worker
COPY requirements/all.lock requirements/all.lock
RUN pip install --no-cache-dir -r requirements/all.lock
COPY . .
