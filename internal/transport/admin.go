package transport

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	databasepb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	instancepb "cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
)

// EnsureEmulator creates the instance and the database of the DSN if they
// do not exist, when auto_config_emulator is on; otherwise, and once it has
// succeeded, it does nothing. Every path to the server (a new connection, a
// session) calls it first, so that the first statement of any kind, DDL
// included, finds the database. Concurrent callers share one set-up, which
// runs on a context of its own bounded by connect_timeout and waits for
// each caller only as long as its own context allows (shared_step.go); a
// failure is returned and the next call tries again.
func (c *Client) EnsureEmulator(ctx context.Context) error {
	if !c.cfg.AutoConfigEmulator || c.emulatorReady.Load() {
		return nil
	}
	_, err := c.emulatorStep.do(ctx, c.life, "the emulator's instance and database", func(ctx context.Context) (struct{}, error) {
		if c.emulatorReady.Load() {
			return struct{}{}, nil
		}
		ctx, cancel := c.withConnectTimeout(ctx)
		defer cancel()
		if err := c.setUpEmulator(ctx); err != nil {
			return struct{}{}, err
		}
		c.emulatorReady.Store(true)
		return struct{}{}, nil
	})
	return err
}

// setUpEmulator creates the instance and the database of the DSN if they do
// not exist (auto_config_emulator), over the client's own plain-text
// channel; a new database gets the dialect property's dialect. A server
// without the instance admin API (spannertest) answers Unimplemented; that
// step is then skipped.
func (c *Client) setUpEmulator(ctx context.Context) error {
	ch := c.Channel()
	ops := longrunningpb.NewOperationsClient(ch)
	instPath := c.cfg.InstancePath()

	ia := instancepb.NewInstanceAdminClient(ch)
	_, err := ia.GetInstance(c.AdminContext(ctx, "name", instPath), &instancepb.GetInstanceRequest{Name: instPath})
	switch status.Code(err) {
	case codes.OK, codes.Unimplemented:
	case codes.NotFound:
		op, err := ia.CreateInstance(c.AdminContext(ctx, "parent", "projects/"+c.cfg.Project), &instancepb.CreateInstanceRequest{
			Parent:     "projects/" + c.cfg.Project,
			InstanceId: c.cfg.Instance,
			Instance: &instancepb.Instance{
				Name:        instPath,
				Config:      "projects/" + c.cfg.Project + "/instanceConfigs/emulator-config",
				DisplayName: c.cfg.Instance,
				NodeCount:   1,
			},
		})
		if err == nil {
			err = waitOperation(c.AdminContext(ctx, "name", op.GetName()), ops, op)
		}
		if err != nil && status.Code(err) != codes.AlreadyExists {
			return fmt.Errorf("spannerfast: auto_config_emulator: create instance %s: %w", instPath, err)
		}
	default:
		return fmt.Errorf("spannerfast: auto_config_emulator: get instance %s: %w", instPath, err)
	}

	da := databasepb.NewDatabaseAdminClient(ch)
	_, err = da.GetDatabase(c.AdminContext(ctx, "name", c.dbPath), &databasepb.GetDatabaseRequest{Name: c.dbPath})
	switch status.Code(err) {
	case codes.OK:
	case codes.NotFound:
		req := &databasepb.CreateDatabaseRequest{
			Parent:          instPath,
			CreateStatement: "CREATE DATABASE `" + c.cfg.Database + "`",
		}
		if c.cfg.NewDatabaseDialect() == dsn.DialectPostgreSQL {
			req.CreateStatement = `CREATE DATABASE "` + c.cfg.Database + `"`
			req.DatabaseDialect = databasepb.DatabaseDialect_POSTGRESQL
		}
		op, err := da.CreateDatabase(c.AdminContext(ctx, "parent", instPath), req)
		if err == nil {
			err = waitOperation(c.AdminContext(ctx, "name", op.GetName()), ops, op)
		}
		if err != nil && status.Code(err) != codes.AlreadyExists {
			return fmt.Errorf("spannerfast: auto_config_emulator: create database %s: %w", c.dbPath, err)
		}
	default:
		return fmt.Errorf("spannerfast: auto_config_emulator: get database %s: %w", c.dbPath, err)
	}
	return nil
}

// waitOperation polls a long-running operation until it is done, backing
// off from 10ms to 1s between polls.
func waitOperation(ctx context.Context, ops longrunningpb.OperationsClient, op *longrunningpb.Operation) error {
	_, err := awaitOperation(ctx, ops, op)
	return err
}

// awaitOperation is waitOperation returning the operation as last seen: done
// (its metadata says how far it got, also when it failed), or as it was
// when ctx ended or a poll failed.
func awaitOperation(ctx context.Context, ops longrunningpb.OperationsClient, op *longrunningpb.Operation) (*longrunningpb.Operation, error) {
	delay := 10 * time.Millisecond
	for !op.GetDone() {
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return op, ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, time.Second)
		next, err := ops.GetOperation(ctx, &longrunningpb.GetOperationRequest{Name: op.GetName()})
		if err != nil {
			return op, err
		}
		op = next
	}
	if e := op.GetError(); e != nil {
		return op, status.ErrorProto(e)
	}
	return op, nil
}

// DatabaseAdmin returns a database admin stub on the next channel (DDL,
// CREATE DATABASE, DROP DATABASE). Calls must carry AdminContext.
func (c *Client) DatabaseAdmin() databasepb.DatabaseAdminClient {
	return databasepb.NewDatabaseAdminClient(c.Channel())
}

// AdminContext returns ctx with the metadata of an admin call:
// google-cloud-resource-prefix (the database path), x-goog-request-params
// "<param>=<escaped value>" (the request's routing field: database, parent
// or name, as the official admin client sends) and the tracing header when
// enabled. Admin calls are never routed to the leader.
func (c *Client) AdminContext(ctx context.Context, param, value string) context.Context {
	md := c.md.Copy()
	md.Set(HeaderRequestParams, param+"="+url.QueryEscape(value))
	return attach(ctx, md)
}

// AwaitOperation polls a long-running admin operation on the client's own
// channels until it is done and returns it as last seen (see
// awaitOperation) with its error, with its gRPC code.
func (c *Client) AwaitOperation(ctx context.Context, op *longrunningpb.Operation) (*longrunningpb.Operation, error) {
	if op.GetDone() {
		return awaitOperation(ctx, nil, op)
	}
	ops := longrunningpb.NewOperationsClient(c.Channel())
	return awaitOperation(c.AdminContext(ctx, "name", op.GetName()), ops, op)
}
