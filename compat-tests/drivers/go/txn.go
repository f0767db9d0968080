package main

// The transactional ops of the driver protocol: txn_produce, txn_end and txn_copy.
//
// A named transactional producer is a kgo client with a TransactionalID, created on the name's
// first step and closed by close; franz-go initialises its producer id with the first record.
// txn_copy runs a GroupTransactSession of its own for the step (consume, begin, produce, end):
// its End sends the offsets of the records polled into the transaction and commits.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

type txnFields struct {
	Producer             string `json:"producer"`
	TransactionalID      string `json:"transactional_id"`
	End                  string `json:"end"`
	Commit               bool   `json:"commit"`
	TransactionTimeoutMs *int64 `json:"transaction_timeout_ms"`
	Input                string `json:"input"`
	Output               string `json:"output"`
}

type txnProducer struct {
	cl   *kgo.Client
	open bool
}

func (d *driver) txnStep(s *step) (map[string]any, error) {
	var f txnFields
	if err := json.Unmarshal(s.raw, &f); err != nil {
		return nil, err
	}
	switch s.Op {
	case "txn_produce":
		return d.txnProduce(s, &f)
	case "txn_end":
		p, ok := d.txns[f.Producer]
		if !ok {
			return nil, fmt.Errorf("no producer %s", f.Producer)
		}
		return map[string]any{}, p.end(f.Commit)
	case "txn_copy":
		return d.txnCopy(s, &f)
	}
	return nil, errUnsupported
}

func (d *driver) txnProducer(f *txnFields) (*txnProducer, error) {
	if p, ok := d.txns[f.Producer]; ok {
		return p, nil
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(d.bootstrap),
		kgo.TransactionalID(f.TransactionalID),
		kgo.RecordPartitioner(stepPartitioner{inner: kgo.UniformBytesPartitioner(64<<10, true, true, nil)}),
		kgo.ProducerLinger(5 * time.Millisecond),
		kgo.ProducerBatchMaxBytes(clientMaxBytes),
	}
	if f.TransactionTimeoutMs != nil {
		opts = append(opts, kgo.TransactionTimeout(ms(*f.TransactionTimeoutMs)))
	}
	cl, err := newClient(opts...)
	if err != nil {
		return nil, err
	}
	p := &txnProducer{cl: cl}
	d.txns[f.Producer] = p
	return p, nil
}

func (p *txnProducer) end(commit bool) error {
	ctx, cancel := stepContext(30)
	defer cancel()
	p.open = false
	how := kgo.TryCommit
	if commit {
		if err := p.cl.Flush(ctx); err != nil {
			return err
		}
	} else {
		how = kgo.TryAbort
		if err := p.cl.AbortBufferedRecords(ctx); err != nil {
			return err
		}
	}
	return p.cl.EndTransaction(ctx, how)
}

func (d *driver) txnProduce(s *step, f *txnFields) (map[string]any, error) {
	p, err := d.txnProducer(f)
	if err != nil {
		return nil, err
	}
	if !p.open {
		if err := p.cl.BeginTransaction(); err != nil {
			return nil, err
		}
		p.open = true
	}
	ctx, cancel := stepContext(60)
	defer cancel()
	results := make([]map[string]any, len(s.Records))
	for i, in := range s.Records {
		rec := &kgo.Record{Topic: s.Topic, Context: ctx}
		if rec.Key, err = decode(in.Key); err != nil {
			return nil, err
		}
		if rec.Value, err = decode(in.Value); err != nil {
			return nil, err
		}
		if in.Partition != nil {
			rec.Partition = *in.Partition
			rec.Context = context.WithValue(ctx, manualKey{}, true)
		}
		res, err := p.cl.ProduceSync(ctx, rec).First()
		if err != nil {
			return nil, err
		}
		results[i] = map[string]any{"partition": res.Partition, "offset": res.Offset}
	}
	switch f.End {
	case "open":
	case "abort":
		err = p.end(false)
	default:
		err = p.end(true)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"results": results}, nil
}

func (d *driver) txnCopy(s *step, f *txnFields) (map[string]any, error) {
	sess, err := newGroupTransactSession(
		kgo.SeedBrokers(d.bootstrap),
		kgo.TransactionalID(f.TransactionalID),
		kgo.ConsumerGroup(s.Group),
		kgo.ConsumeTopics(f.Input),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.RequireStableFetchOffsets(),
		kgo.FetchMaxWait(500*time.Millisecond),
		kgo.RecordPartitioner(stepPartitioner{inner: kgo.UniformBytesPartitioner(64<<10, true, true, nil)}),
	)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	maxRecords := 1 << 30
	if s.MaxRecords != nil {
		maxRecords = *s.MaxRecords
	}
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout(s))
	defer cancel()
	var kept []*kgo.Record
	for len(kept) < maxRecords && ctx.Err() == nil {
		fetches := sess.PollRecords(ctx, maxRecords-len(kept))
		for _, fe := range fetches.Errors() {
			if errors.Is(fe.Err, context.DeadlineExceeded) || errors.Is(fe.Err, context.Canceled) {
				continue
			}
			return nil, fe.Err
		}
		fetches.EachRecord(func(r *kgo.Record) { kept = append(kept, r) })
	}
	if len(kept) == 0 {
		return map[string]any{"copied": 0}, nil
	}
	if err := sess.Begin(); err != nil {
		return nil, err
	}
	wctx, wcancel := stepContext(30)
	defer wcancel()
	for _, r := range kept {
		rec := &kgo.Record{Topic: f.Output, Key: r.Key, Value: r.Value, Headers: r.Headers, Partition: r.Partition}
		rec.Context = context.WithValue(wctx, manualKey{}, true)
		if _, err := sess.Client().ProduceSync(wctx, rec).First(); err != nil {
			return nil, err
		}
	}
	committed, err := sess.End(wctx, kgo.TryCommit)
	if err != nil {
		return nil, err
	}
	if !committed {
		return nil, errors.New("the transaction was aborted")
	}
	return map[string]any{"copied": len(kept)}, nil
}

func (d *driver) closeTxns() {
	for name, p := range d.txns {
		p.cl.Close()
		delete(d.txns, name)
	}
}
