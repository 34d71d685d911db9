# The Sluice HTTP functions as a container-image Lambda: the esbuild bundle of
# functions/lambda.ts, with LanceDB (the workspace package @sluice/lance) installed next to it,
# its native module the one for the function's architecture. A zip cannot hold it: the module
# alone is ~155 MB, and a zip is limited to 250 MB unzipped with the bundle.
# Built by `cdk deploy` with the repository root as context (only the files that
# infra/aws/lib/function-image.ts lets through), for the platform of the `functionArchitecture`
# setting, which also passes LANCEDB_NATIVE, the native package of that architecture.

# The bundle is plain JavaScript, the same on every architecture: built on the build machine's own.
FROM --platform=$BUILDPLATFORM node:22-bookworm-slim AS bundle
WORKDIR /src
COPY package.json package-lock.json ./
# Sluice's dependencies are bundled, LanceDB is not: drop @sluice/lance and the workspaces, add the
# bundler and tsx that runs it, at the versions the lock file pins.
RUN node -e "const fs=require('fs');const p=JSON.parse(fs.readFileSync('package.json','utf8'));const l=JSON.parse(fs.readFileSync('package-lock.json','utf8'));delete p.dependencies['@sluice/lance'];p.dependencies.tsx=p.devDependencies.tsx;p.dependencies.esbuild=l.packages['node_modules/esbuild'].version;delete p.devDependencies;p.workspaces=[];fs.writeFileSync('package.json',JSON.stringify(p,null,2))" \
 && npm install --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY shared shared
COPY queue queue
COPY runtime runtime
COPY observability observability
COPY jobs jobs
COPY functions functions
COPY infra/aws/lib/lambda-bundle.ts infra/aws/lib/
RUN node --import tsx infra/aws/lib/lambda-bundle.ts /src /bundle

FROM public.ecr.aws/lambda/nodejs:22
ARG LANCEDB_NATIVE
WORKDIR ${LAMBDA_TASK_ROOT}
COPY package.json package-lock.json ./
COPY packages/lance/package.json packages/lance/index.cjs packages/lance/index.d.ts packages/lance/
# Only @sluice/lance, as a workspace, and usearch (the pending blocks' graphs), at the versions
# the lock file pins. npm runs on the target platform here, so it picks LanceDB's native
# package for it; the build fails unless that is LANCEDB_NATIVE and both native modules load.
RUN test -n "$LANCEDB_NATIVE" \
 && node -e "const fs=require('fs');const p=JSON.parse(fs.readFileSync('package.json','utf8'));p.dependencies={'@sluice/lance':p.dependencies['@sluice/lance'],usearch:p.dependencies.usearch};delete p.devDependencies;p.workspaces=['packages/lance'];fs.writeFileSync('package.json',JSON.stringify(p,null,2))" \
 && npm install --omit=dev --no-audit --no-fund \
 && npm ls "$LANCEDB_NATIVE" \
 && node -e "require('@sluice/lance').lancedb.connect" \
 && node -e "new (require('usearch').Index)({dimensions:2,metric:'l2sq'})" \
 && npm cache clean --force
COPY --from=bundle /bundle/ ./
CMD ["index.handler"]
