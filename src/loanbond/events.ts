// The events of the loan-bond interface (docs/events.md): each record of a committed batch, then each
// record the asynchronous flow moved on. No secret goes in them (the access token stays out).
import type { EventSink, EventType } from '../runtime/events.js';

const SUBJECT = 'loanbond/registrations/{codigoIdentificador}';

export const RECORD_REGISTERED: EventType = {
  type: 'sandbox.loanbond.record.registered',
  subject: SUBJECT,
  when: 'each record of a batch registered (POST .../registrar answered 201)',
  data: ['codigoIdentificador', 'chaveRegistro', 'callerId', 'batch', 'position', 'assinado', 'state', 'registeredAt'],
};

export const RECORD_PROCESSED: EventType = {
  type: 'sandbox.loanbond.record.processed',
  subject: SUBJECT,
  when: 'the asynchronous flow moved a record on (to signatures-complete or signatures-pending)',
  data: ['codigoIdentificador', 'state', 'notification', 'at'],
};

export const EVENT_TYPES: readonly EventType[] = [RECORD_REGISTERED, RECORD_PROCESSED];

const subject = (id: string) => `loanbond/registrations/${id}`;

export interface RegisteredRecord {
  codigoIdentificador: string;
  chaveRegistro: string;
  callerId: string;
  batch: string;
  position: number;
  assinado: boolean;
  registeredAt: string;
}

export function recordsRegistered(events: EventSink, records: readonly RegisteredRecord[]): void {
  for (const r of records) events.emit(RECORD_REGISTERED.type, subject(r.codigoIdentificador), { ...r, state: 'registered' });
}

export function recordProcessed(
  events: EventSink,
  r: { codigoIdentificador: string; state: string; notification: 'would-notify' | 'no-recipients' | 'waiting-for-signatures'; at: string },
): void {
  events.emit(RECORD_PROCESSED.type, subject(r.codigoIdentificador), { ...r });
}
