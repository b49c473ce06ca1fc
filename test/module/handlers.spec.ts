/**
 * @OnBroadcast discovery: stacked decorators, topic arrays, several methods per topic,
 * controllers, factory- and value-provided instances, `this` binding; request-scoped and
 * transient providers fail the startup.
 */
import { Controller, Inject, Injectable, Scope } from '@nestjs/common';
import {
  BroadcastEngine,
  BroadcastModule,
  BroadcastPublisher,
  BroadcastReader,
  OnBroadcast,
  type BroadcastMessage,
} from 'nestjs-kafka-broadcast';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { postgresRoot, useNestHarness } from '../support/nest/nest.js';

interface Note {
  n: number;
}

@Injectable()
class Stacked {
  /** Read through `this` by every handler: proves each is bound to the instance. */
  private readonly tag = 'stacked';
  readonly calls: string[] = [];

  @OnBroadcast('a')
  @OnBroadcast('b')
  both(payload: Note, message: BroadcastMessage<Note>) {
    this.calls.push(`${this.tag}.both:${message.topic}:${payload.n}`);
  }

  @OnBroadcast(['c', 'd'])
  many(payload: Note, message: BroadcastMessage<Note>) {
    this.calls.push(`${this.tag}.many:${message.topic}:${payload.n}`);
  }

  @OnBroadcast('shared')
  first(payload: Note) {
    this.calls.push(`${this.tag}.first:shared:${payload.n}`);
  }

  @OnBroadcast('shared', { name: 'second-shared-handler' })
  async second(payload: Note) {
    await Promise.resolve();
    this.calls.push(`${this.tag}.second:shared:${payload.n}`);
  }

  /** Not decorated: must never be called. */
  notAHandler() {
    this.calls.push('not-a-handler');
  }
}

@Controller()
class EventsController {
  private readonly tag = 'controller';
  readonly calls: string[] = [];

  @OnBroadcast('shared')
  onShared(payload: Note) {
    this.calls.push(`${this.tag}:shared:${payload.n}`);
  }
}

/** Instantiated by hand: once through useFactory, once through useValue. */
class HandMade {
  readonly calls: string[] = [];

  constructor(private readonly origin: string) {}

  @OnBroadcast('made')
  onMade(payload: Note) {
    this.calls.push(`${this.origin}:made:${payload.n}`);
  }
}

const FACTORY_MADE = 'FACTORY_MADE';
const VALUE_MADE = 'VALUE_MADE';

describe.each(kafkaClients())('@OnBroadcast discovery, %s client', (client) => {
  it('registers stacked, array and same-topic handlers on providers, controllers, factory and value providers, bound to their instance', async () => {
    const h = useNestHarness('handlers', undefined, client);
    const valueMade = new HandMade('value');
    const app = await h.start({
      imports: [postgresRoot(), BroadcastModule.forRoot(h.options())],
      controllers: [EventsController],
      providers: [
        Stacked,
        { provide: FACTORY_MADE, useFactory: () => new HandMade('factory') },
        { provide: VALUE_MADE, useValue: valueMade },
      ],
    });
    const stacked = app.get(Stacked);
    const controller = app.get(EventsController);
    const factoryMade = app.get<HandMade>(FACTORY_MADE);
    expect(app.get(VALUE_MADE)).toBe(valueMade);

    // Handler names: Class.method by default, the decorator's `name` when given.
    const registry = registryOf(app.get(BroadcastEngine));
    // broadcast.receipts.v1: the engine's own, for receipt acknowledgements.
    expect(registry.topics().sort()).toEqual([
      'a',
      'b',
      'broadcast.receipts.v1',
      'c',
      'd',
      'made',
      'shared',
    ]);
    expect(
      registry
        .handlersFor('shared')!
        .map((x) => x.name)
        .sort(),
    ).toEqual(['EventsController.onShared', 'Stacked.first', 'second-shared-handler']);
    expect(registry.handlersFor('made')).toHaveLength(2);

    const publisher = app.get(BroadcastPublisher);
    const topics = ['a', 'b', 'c', 'd', 'shared', 'made'];
    for (const [n, topic] of topics.entries()) await publisher.publish(topic, { n });
    const reader = app.get(BroadcastReader);
    await waitFor(() => reader.status().received === topics.length, {
      message: 'every publish is received',
    });
    await waitFor(() => stacked.calls.length === 6 && controller.calls.length === 1, {
      message: 'the async handler completes',
    });

    expect([...stacked.calls].sort()).toEqual(
      [
        'stacked.both:a:0',
        'stacked.both:b:1',
        'stacked.many:c:2',
        'stacked.many:d:3',
        'stacked.first:shared:4',
        'stacked.second:shared:4',
      ].sort(),
    );
    expect(controller.calls).toEqual(['controller:shared:4']);
    expect(factoryMade.calls).toEqual(['factory:made:5']);
    expect(valueMade.calls).toEqual(['value:made:5']);
    expect(reader.status()).toMatchObject({ failed: 0, skipped: 0 });
  });

  it('fails app.init() on @OnBroadcast methods of request-scoped and transient providers, naming each class and method and what to do, before the engine starts', async () => {
    const constructed: string[] = [];

    @Injectable({ scope: Scope.REQUEST })
    class PerRequestHandler {
      constructor() {
        constructed.push('PerRequestHandler');
      }

      @OnBroadcast('per.request')
      onPerRequest() {}
    }

    /** Not marked request-scoped itself, but it depends on one, so Nest makes it request-scoped. */
    @Injectable()
    class DependsOnRequestScoped {
      constructor(@Inject(PerRequestHandler) readonly dep: PerRequestHandler) {
        constructed.push('DependsOnRequestScoped');
      }

      @OnBroadcast('implicit.request')
      onImplicit() {}
    }

    /**
     * One instance per consumer: none of them is the explorer's. Before, the handler was bound
     * to an instance whose constructor never ran, and failed on every message.
     */
    @Injectable({ scope: Scope.TRANSIENT })
    class PerConsumerHandler {
      @OnBroadcast('transient')
      onTransient() {}
    }

    @Injectable()
    class Singleton {
      constructor(readonly perConsumer: PerConsumerHandler) {}

      @OnBroadcast('singleton')
      onSingleton() {}
    }

    const h = useNestHarness('scoped-handlers', undefined, client);
    const app = await h.create({
      imports: [postgresRoot(), BroadcastModule.forRoot(h.options())],
      providers: [PerRequestHandler, DependsOnRequestScoped, PerConsumerHandler, Singleton],
    });
    const init = app.init();

    await expect(init).rejects.toThrow(
      /^@OnBroadcast handlers must be methods of singleton providers \(the default scope\)/,
    );
    const { message } = (await init.catch((error: unknown) => error)) as Error;
    for (const named of [
      'PerRequestHandler.onPerRequest (PerRequestHandler is request-scoped)',
      'DependsOnRequestScoped.onImplicit (DependsOnRequestScoped is request-scoped through a request-scoped dependency)',
      'PerConsumerHandler.onTransient (PerConsumerHandler is transient)',
    ]) {
      expect(message).toContain(named);
    }
    // What to do about it.
    expect(message).toMatch(/Move each to a singleton provider/);
    expect(message).toMatch(/moduleRef\.resolve\(/);
    expect(message).not.toMatch(/Singleton\.onSingleton/);

    // Nothing was started: no request-scoped instance, no group, no topic.
    expect(constructed).toEqual([]);
    expect(app.get(BroadcastReader).status().state).toBe('starting');
    expect(await h.groups()).toEqual([]);
    const topics = await (await h.admin()).listTopics();
    expect(topics.filter((t) => t.startsWith(h.prefix))).toEqual([]);
  });
});

/** The engine's handler registry: private, read here only to check the names handlers get. */
function registryOf(engine: BroadcastEngine): {
  topics(): string[];
  handlersFor(topic: string): { name: string }[] | undefined;
} {
  return (engine as unknown as { registry: ReturnType<typeof registryOf> }).registry;
}
