// Response serializers built on first use: compiling every route's serializer at start-up is time
// spent on routes a run may never answer.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance } from 'fastify';

export function useLazySerializers(app: FastifyInstance): void {
  const buildSerializer = SerializerSelector()({}, {});
  app.setSerializerCompiler((route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= buildSerializer({ ...route, httpStatus: route.httpStatus ?? '200' }))(data);
  });
}
