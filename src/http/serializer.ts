// Response serializers built on first use: compiling every route's serializer at start-up is time
// spent on routes a run may never answer.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance } from 'fastify';
import { holdsDecimalText, stringifyExact } from './exact-numbers.js';

export function useLazySerializers(app: FastifyInstance): void {
  const buildSerializer = SerializerSelector()({}, {});
  app.setSerializerCompiler((route) => {
    let serialize: ((data: unknown) => string) | undefined;
    const compiled = (data: unknown) => (serialize ??= buildSerializer({ ...route, httpStatus: route.httpStatus ?? '200' }))(data);
    // The control plane shows amounts; one a double would change is written digit for digit. The
    // emulated interfaces' documented bodies carry no amount, so their answers are never walked.
    if (!route.url.startsWith('/_sandbox')) return compiled;
    return (data: unknown) => (holdsDecimalText(data) ? stringifyExact(data) : compiled(data));
  });
}
