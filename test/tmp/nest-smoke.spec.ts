import { Controller, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { EventPattern, Payload, Ctx } from '@nestjs/microservices';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BroadcastModule, OnBroadcast, BroadcastPublisher, BroadcastReader, BroadcastTransport, BroadcastHealthIndicator, BROADCAST_TRANSPORT, BroadcastContext, type BroadcastMessage } from '@app/broadcast';
import { readFileSync } from 'node:fs';

const brokers = JSON.parse(readFileSync('.kafka/state.json', 'utf8')).brokers;
const prefix = `nsmoke${Date.now().toString(36)}.`;

const seen: string[] = [];
@Injectable() class Cache {
  @OnBroadcast('product.changed') @OnBroadcast('other')
  evict(p: { id: number }, m: BroadcastMessage) { seen.push(`svc:${m.topic}:${p.id}`); }
}
@Controller() class Ctl {
  @EventPattern('product.changed', BROADCAST_TRANSPORT)
  onEvent(@Payload() p: { id: number }, @Ctx() ctx: BroadcastContext) { seen.push(`ev:${ctx.getTopic()}:${p.id}`); }
}
@Module({
  imports: [
    TypeOrmModule.forRoot({ type: 'postgres', host: '127.0.0.1', port: 5432, username: 'postgres', database: 'test' }),
    BroadcastModule.forRoot({ kafka: { brokers }, topicPrefix: prefix }),
  ],
  providers: [Cache], controllers: [Ctl],
}) class AppModule {}

it('nest module works', async () => {
  const mod = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = mod.createNestApplication();
  app.connectMicroservice({ strategy: app.get(BroadcastTransport) });
  await app.startAllMicroservices();
  await app.init();
  const reader = app.get(BroadcastReader);
  await app.get(BroadcastPublisher).publish('product.changed', { id: 7 });
  const deadline = Date.now() + 10000;
  while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  console.log(seen, reader.status(), JSON.stringify(app.get(BroadcastHealthIndicator).isHealthy()));
  await app.close();
  console.log(reader.status());
  expect(seen.sort()).toEqual(['ev:product.changed:7', 'svc:product.changed:7']);
});
