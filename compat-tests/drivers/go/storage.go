package main

// Storage and config steps: list_offsets, describe_configs, alter_configs
// (IncrementalAlterConfigs) and delete_records, sent as kmsg requests through the session's admin client so that every field
// of the responses (read-only flags, sources, synonyms) is visible.

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// timestampTypes names a record's timestamp type as Kafka's TimestampType does.
var timestampTypes = map[int8]string{0: "CreateTime", 1: "LogAppendTime"}

// configSources spells DescribeConfigs' source codes as Kafka's Admin API does.
var configSources = map[kmsg.ConfigSource]string{
	0: "UNKNOWN",
	1: "DYNAMIC_TOPIC_CONFIG",
	2: "DYNAMIC_BROKER_CONFIG",
	3: "DYNAMIC_DEFAULT_BROKER_CONFIG",
	4: "STATIC_BROKER_CONFIG",
	5: "DEFAULT_CONFIG",
	6: "DYNAMIC_BROKER_LOGGER_CONFIG",
	7: "DYNAMIC_CLIENT_METRICS_CONFIG",
	8: "DYNAMIC_GROUP_CONFIG",
}

func sourceName(s kmsg.ConfigSource) string {
	if name, ok := configSources[s]; ok {
		return name
	}
	return fmt.Sprintf("UNKNOWN(%d)", s)
}

func (d *driver) describeConfigs(s *step) (map[string]any, error) {
	if _, err := d.adminClient(); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeTopic
	res.ResourceName = s.Topic
	res.ConfigNames = s.Names
	req.Resources = append(req.Resources, res)
	req.IncludeSynonyms = s.Synonyms
	ctx, cancel := stepContext(30)
	defer cancel()
	resp, err := req.RequestWith(ctx, d.admin)
	if err != nil {
		return nil, err
	}
	described := map[string]map[string]any{}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			return nil, err
		}
		for _, c := range r.Configs {
			entry := map[string]any{
				"value":     c.Value,
				"source":    sourceName(c.Source),
				"read_only": c.ReadOnly,
				"sensitive": c.IsSensitive,
			}
			if s.Synonyms {
				synonyms := []map[string]any{}
				for _, y := range c.ConfigSynonyms {
					synonyms = append(synonyms, map[string]any{"name": y.Name, "value": y.Value, "source": sourceName(y.Source)})
				}
				entry["synonyms"] = synonyms
			}
			described[c.Name] = entry
		}
	}
	names := s.Names
	if names == nil {
		for name := range described {
			names = append(names, name)
		}
		sort.Strings(names)
	}
	configs := map[string]any{}
	for _, name := range names {
		if entry, ok := described[name]; ok {
			configs[name] = entry
		}
	}
	return map[string]any{"configs": configs}, nil
}

func (d *driver) alterConfigs(s *step) (map[string]any, error) {
	if _, err := d.adminClient(); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeTopic
	res.ResourceName = s.Topic
	names := make([]string, 0, len(s.Set))
	for name := range s.Set {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		value := s.Set[name]
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Op, c.Value = name, kmsg.IncrementalAlterConfigOpSet, &value
		res.Configs = append(res.Configs, c)
	}
	for _, name := range s.Delete {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Op = name, kmsg.IncrementalAlterConfigOpDelete
		res.Configs = append(res.Configs, c)
	}
	req.Resources = append(req.Resources, res)
	ctx, cancel := stepContext(30)
	defer cancel()
	resp, err := req.RequestWith(ctx, d.admin)
	if err != nil {
		return nil, err
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			return nil, err
		}
	}
	return map[string]any{}, nil
}

func (d *driver) deleteRecords(s *step) (map[string]any, error) {
	if _, err := d.adminClient(); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrDeleteRecordsRequest()
	req.TimeoutMillis = 15000
	t := kmsg.NewDeleteRecordsRequestTopic()
	t.Topic = s.Topic
	p := kmsg.NewDeleteRecordsRequestTopicPartition()
	p.Partition, p.Offset = s.Partition, s.BeforeOffset
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	ctx, cancel := stepContext(30)
	defer cancel()
	resp, err := req.RequestWith(ctx, d.admin)
	if err != nil {
		return nil, err
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				return nil, err
			}
			return map[string]any{"low_watermark": rp.LowWatermark}, nil
		}
	}
	return nil, errors.New("no partition in DeleteRecords response")
}

func (d *driver) listOffsets(s *step) (map[string]any, error) {
	if _, err := d.adminClient(); err != nil {
		return nil, err
	}
	var ts int64
	var name string
	if err := json.Unmarshal(s.Spec, &name); err == nil {
		switch name {
		case "earliest":
			ts = -2
		case "latest":
			ts = -1
		case "max_timestamp":
			ts = -3
		default:
			return nil, errUnsupported
		}
	} else {
		var spec struct {
			Timestamp *int64 `json:"timestamp"`
		}
		if err := json.Unmarshal(s.Spec, &spec); err != nil || spec.Timestamp == nil {
			return nil, errUnsupported
		}
		ts = *spec.Timestamp
	}
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = s.Topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition = s.Partition
	rp.Timestamp = ts
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	ctx, cancel := stepContext(30)
	defer cancel()
	resp, err := req.RequestWith(ctx, d.admin)
	if err != nil {
		return nil, err
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return nil, err
			}
			var stamp any
			if p.Timestamp >= 0 {
				stamp = p.Timestamp
			}
			return map[string]any{"offset": p.Offset, "timestamp": stamp}, nil
		}
	}
	return nil, errors.New("no partition in ListOffsets response")
}
